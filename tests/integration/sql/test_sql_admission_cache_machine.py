"""`AdmissionCache` as a state machine: once every change's notice has arrived, nothing stale is handed out."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from engage_core.accounts.model import Account, Admission
from engage_sql.accounts.admissions import AdmissionCache

KEYS = st.sampled_from(["a", "b"])
WHEN = datetime(2026, 1, 1, tzinfo=UTC)


def _admission(key: str, version: int) -> tuple[Admission, str]:
    """The admission of `key` as stored at `version` (its name carries the version)."""
    return Admission(Account(1, f"{key}@{version}", True, (), "hint", WHEN, WHEN), False, None), key


class AdmissionCacheMachine(RuleBasedStateMachine):
    """Reads overlap changes; notices arrive late, or the listener drops and comes back."""

    def __init__(self) -> None:
        super().__init__()
        self.cache = AdmissionCache()
        self.stored = {"a": 0, "b": 0}
        """What the database holds now, by key (its version)."""
        self.notices = 0
        """Changes committed whose notice has not reached the cache yet."""
        self.reads: list[tuple[str, int, int]] = []
        """Reads begun and not ended: key, generation taken before the statement, version it saw."""

    @rule()
    def listener_connects(self) -> None:
        self.cache.listening(True)
        self.notices = 0  # from now on every change is heard; older ones are covered by the emptying

    @rule()
    def listener_drops(self) -> None:
        self.cache.listening(False)

    @rule(key=KEYS)
    def read_begins(self, key: str) -> None:
        self.reads.append((key, self.cache.generation, self.stored[key]))

    @precondition(lambda self: self.reads)
    @rule(index=st.integers(min_value=0, max_value=9))
    def read_ends(self, index: int) -> None:
        key, generation, version = self.reads.pop(index % len(self.reads))
        self.cache.put(key, _admission(key, version), generation)

    @rule(key=KEYS)
    def change_commits(self, key: str) -> None:
        self.stored[key] += 1
        self.notices += 1

    @precondition(lambda self: self.notices)
    @rule()
    def notice_arrives(self) -> None:
        self.notices -= 1
        self.cache.forget()

    @invariant()
    def heard_everything_means_nothing_stale(self) -> None:
        if self.notices:
            return  # a change not heard yet may still be served: the window the design accepts
        for key, version in self.stored.items():
            kept = self.cache.get(key)
            assert kept is None or kept[0].account.name == f"{key}@{version}"


TestAdmissionCacheMachine = AdmissionCacheMachine.TestCase
TestAdmissionCacheMachine.settings = settings(max_examples=300, stateful_step_count=40, deadline=None)


def test_the_oldest_admission_goes_first_when_full() -> None:
    """Beyond `max_entries`, the admission kept longest is dropped."""
    cache = AdmissionCache(max_entries=2)
    cache.listening(True)
    for key in ("a", "b", "c"):
        cache.put(key, _admission(key, 0), cache.generation)

    assert [cache.get(key) is not None for key in ("a", "b", "c")] == [False, True, True]


@pytest.mark.parametrize(("max_age", "kept"), [(0.0, False), (60.0, True)])
def test_an_admission_older_than_max_age_is_not_handed_out(max_age: float, kept: bool) -> None:
    """An admission is handed out for at most `max_age` seconds, whatever notices arrive."""
    cache = AdmissionCache(max_age=max_age)
    cache.listening(True)
    cache.put("a", _admission("a", 0), cache.generation)

    assert (cache.get("a") is not None) is kept
