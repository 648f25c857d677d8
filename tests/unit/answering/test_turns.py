"""`settle`: whatever a model proposes, the turn is well formed."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from engage_core.answering.chat import Usage
from engage_core.answering.passages import Passage
from engage_core.answering.turns import ACTIONS, TurnDraft, settle

PASSAGES = (Passage(1, "A", None, "a", 0.9), Passage(2, "B", None, "b", 0.5))
drafts = st.builds(
    TurnDraft,
    reply=st.text(max_size=50),
    action=st.sampled_from([*ACTIONS, "escalate", ""]),
    citations=st.lists(st.integers(0, 4), max_size=5).map(tuple),
    confidence=st.none() | st.floats(allow_nan=True, allow_infinity=True),
)


@given(drafts, st.booleans())
def test_a_settled_turn_is_well_formed(draft: TurnDraft, grounded: bool) -> None:
    """A known action, citations among the passages once each, a confidence from 0 to 1, a reply."""
    turn = settle(draft, PASSAGES, grounded=grounded, usage=Usage(1, 1))

    assert turn.action in ACTIONS
    assert set(turn.citations) <= {1, 2} and len(set(turn.citations)) == len(turn.citations)
    assert 0.0 <= turn.confidence <= 1.0
    assert turn.reply.strip()
    assert grounded or turn.action != "continue"
