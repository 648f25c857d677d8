"""LinkedIn sourcing over the fakes: the search, launches (invitations, sequences), the weekly cap and
its warning, replies that stop a sequence, the overview, and the feature gate."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from engage_core.campaigns.model import RecipientFilter
from engage_core.campaigns.quotas import Quotas
from engage_core.jobs.runner import JobRunner
from engage_core.kernel.errors import Forbidden, ValidationFailed
from engage_core.kernel.fakes import FakeClock
from engage_core.kernel.pagination import PageRequest
from engage_core.linkedin.model import SequenceStep
from engage_core.linkedin.service import LaunchInput
from engage_core.messaging.channel_service import CredentialsInput
from engage_core.messaging.people import PeopleQuery
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_core.testing import InMemoryJobQueue, InMemoryUnitOfWorkFactory

ALL = PageRequest(1, 1000)


def _ids(services: Services, account_id: int, n: int) -> tuple[str, ...]:
    page = services.linkedin.search(account_id, PeopleQuery(keywords="engineer", limit=n))
    return tuple(p.provider_id for p in page.items)


class _NoLinkedIn:
    def allows(self, account_id: int, feature: str) -> bool:
        return feature != "linkedin_access"


def test_a_search_pages_through_the_sandbox_directory_with_next_cursor(
    services: Services, account_id: int, linkedin: str
) -> None:
    """Two pages of the same search meet no profile twice, and every item matches."""
    first = services.linkedin.search(account_id, PeopleQuery(title="founder", location="riyadh", limit=5))
    second = services.linkedin.search(
        account_id, PeopleQuery(title="founder", location="riyadh", limit=5, cursor=first.next_cursor)
    )

    ids = [p.provider_id for p in (*first.items, *second.items)]
    assert len(ids) == len(set(ids)) == 10
    assert all("Founder" in p.headline and "Riyadh" in p.location for p in (*first.items, *second.items))


def test_a_search_without_any_criterion_is_a_422(services: Services, account_id: int, linkedin: str) -> None:
    """Keywords, title, industry, location and company all blank: refused."""
    with pytest.raises(ValidationFailed):
        services.linkedin.search(account_id, PeopleQuery(keywords="  ", limit=5))


def test_a_search_without_a_connected_account_is_a_422_on_channel(services: Services, account_id: int) -> None:
    """No LinkedIn account connected: refused on `channel`."""
    with pytest.raises(ValidationFailed) as refused:
        services.linkedin.search(account_id, PeopleQuery(keywords="engineer"))

    assert list(refused.value.errors) == ["channel"]


def test_without_linkedin_access_every_operation_is_linkedin_upgrade_required(
    uow: InMemoryUnitOfWorkFactory, clock: FakeClock, sandbox: SandboxGateway, account_id: int
) -> None:
    """Overview, search and launch: 403 `linkedin_upgrade_required`."""
    services = Services.build(uow, clock, gateway=sandbox, features=_NoLinkedIn())
    calls: list[Callable[[], object]] = [
        lambda: services.linkedin.overview(account_id),
        lambda: services.linkedin.search(account_id, PeopleQuery(keywords="x")),
        lambda: services.linkedin.launch(account_id, LaunchInput("A", "invite", ("sbx-li-00001",))),
    ]
    codes = []
    for call in calls:
        with pytest.raises(Forbidden) as refused:
            call()
        codes.append(refused.value.code)

    assert codes == ["linkedin_upgrade_required"] * 3


def test_an_invite_campaign_invites_every_member_once_with_the_note(
    services: Services, sandbox: SandboxGateway, account_id: int, linkedin: str, drain: Callable[[], None]
) -> None:
    """Three members: three invitations with the note, the campaign completed with three sent."""
    ids = _ids(services, account_id, 3)
    launched = services.linkedin.launch(account_id, LaunchInput("Hiring", "invite", ids, invite_note="Hi {{name}}"))
    drain()

    done = services.campaigns.get(account_id, launched.campaign.id)
    assert sandbox.account(linkedin).invited == dict.fromkeys(ids, "Hi {{name}}")
    assert (done.status, done.counters.sent, launched.contacts_created) == ("completed", 3, 3)


def test_a_second_launch_to_the_same_members_reuses_their_contacts(
    services: Services, account_id: int, linkedin: str
) -> None:
    """The members' contacts are found by their handle: none is created twice."""
    ids = _ids(services, account_id, 2)
    services.linkedin.launch(account_id, LaunchInput("A", "sequence", ids, sequence_messages=(SequenceStep("Hi"),)))
    again = services.linkedin.launch(
        account_id, LaunchInput("B", "sequence", ids, sequence_messages=(SequenceStep("Hi"),))
    )

    assert again.contacts_created == 0


def test_a_note_over_200_characters_is_a_422(services: Services, account_id: int, linkedin: str) -> None:
    """SPEC 8: at most 200 characters."""
    with pytest.raises(ValidationFailed) as refused:
        services.linkedin.launch(account_id, LaunchInput("A", "invite", ("sbx-li-00001",), invite_note="x" * 201))

    assert list(refused.value.errors) == ["invite_note"]


def test_a_sequence_without_messages_and_an_unknown_placeholder_are_422s(
    services: Services, account_id: int, linkedin: str
) -> None:
    """Every problem at once: no messages for one, an unknown placeholder for the other."""
    with pytest.raises(ValidationFailed) as empty:
        services.linkedin.launch(account_id, LaunchInput("A", "sequence", ("sbx-li-00001",)))
    with pytest.raises(ValidationFailed) as unknown:
        services.linkedin.launch(
            account_id,
            LaunchInput("A", "sequence", ("sbx-li-00001",), sequence_messages=(SequenceStep("Hi {{shoe_size}}"),)),
        )

    assert list(empty.value.errors) == ["sequence_messages"]
    assert list(unknown.value.errors) == ["sequence_messages.0.text"]


def test_a_sequence_sends_each_step_after_its_wait_days(
    services: Services,
    sandbox: SandboxGateway,
    clock: FakeClock,
    account_id: int,
    linkedin: str,
    drain: Callable[[], None],
) -> None:
    """Step one at once, step two only once its two days passed; then the campaign completes."""
    ids = _ids(services, account_id, 2)
    steps = (SequenceStep("Hello"), SequenceStep("Following up", wait_days=2))
    launched = services.linkedin.launch(account_id, LaunchInput("Seq", "sequence", ids, sequence_messages=steps))
    drain()
    after_first = [s.text for s in sandbox.account(linkedin).sent]
    running = services.campaigns.get(account_id, launched.campaign.id).status

    clock.advance(days=2, seconds=1)
    drain()

    done = services.campaigns.get(account_id, launched.campaign.id)
    assert (after_first, running) == (["Hello", "Hello"], "running")
    assert [s.text for s in sandbox.account(linkedin).sent] == ["Hello", "Hello", "Following up", "Following up"]
    assert (done.status, done.counters.sent) == ("completed", 2)


def test_a_member_who_replies_gets_no_further_step(
    services: Services,
    sandbox: SandboxGateway,
    clock: FakeClock,
    account_id: int,
    linkedin: str,
    drain: Callable[[], None],
) -> None:
    """The one who wrote back after step one is skipped (`replied`); the other gets step two."""
    ids = _ids(services, account_id, 2)
    steps = (SequenceStep("Hello"), SequenceStep("Following up", wait_days=1))
    launched = services.linkedin.launch(account_id, LaunchInput("Seq", "sequence", ids, sequence_messages=steps))
    drain()
    clock.advance(hours=1)
    sandbox.inject_message(linkedin, ids[0], "Thanks, not interested")
    clock.advance(days=1)
    drain()

    to_second = [s.recipient for s in sandbox.account(linkedin).sent if s.text == "Following up"]
    with services.dependencies.uow.workspace(account_id, readonly=True) as uow:
        follow_ups = uow.linkedin_campaigns.statuses(launched.campaign.id)
    assert to_second == [ids[1]]
    assert follow_ups == {"sent": 1, "skipped": 1}


def test_a_pending_member_who_wrote_since_the_launch_is_skipped_replied(
    services: Services,
    sandbox: SandboxGateway,
    clock: FakeClock,
    account_id: int,
    linkedin: str,
    drain: Callable[[], None],
) -> None:
    """A sequence that starts a day out: the member who writes meanwhile is skipped (`replied`), the other gets it."""
    ids = _ids(services, account_id, 2)
    steps = (SequenceStep("Hello", wait_days=1),)
    launched = services.linkedin.launch(account_id, LaunchInput("Seq", "sequence", ids, sequence_messages=steps))
    clock.advance(hours=1)
    sandbox.inject_message(linkedin, ids[0], "Hi there")
    clock.advance(hours=24)
    drain()

    skipped = services.campaigns.recipients(account_id, launched.campaign.id, RecipientFilter(reason="replied"), ALL)
    assert launched.campaign.status == "scheduled"
    assert skipped.total == 1
    assert [s.recipient for s in sandbox.account(linkedin).sent] == [ids[1]]


def test_the_weekly_cap_holds_invitations_back_and_warns_from_80_percent(
    uow: InMemoryUnitOfWorkFactory,
    clock: FakeClock,
    sandbox: SandboxGateway,
    account_id: int,
    drain: Callable[[], None],
) -> None:
    """A cap of 5 a week: 5 of 7 invitations go, the rest wait (pending, not failed), the overview warns."""
    services = Services.build(
        uow,
        clock,
        gateway=sandbox,
        campaign_quotas=Quotas({}, {"linkedin": 5}),
        sleep=lambda s: clock.advance(seconds=s),
    )
    pid = services.channels.connect_credentials(account_id, "linkedin", CredentialsInput("a@b.c", "pw")).channel
    runner = JobRunner(InMemoryJobQueue(uow.store), services.job_handlers(), clock)
    ids = _ids(services, account_id, 7)
    launched = services.linkedin.launch(account_id, LaunchInput("Cap", "invite", ids))
    while runner.run_once():
        pass

    held = services.campaigns.get(account_id, launched.campaign.id)
    overview = services.linkedin.overview(account_id)
    assert len(sandbox.account(pid.provider_account_id or "").invited) == 5
    assert (held.status, held.counters.sent, held.counters.failed, held.counters.pending) == ("running", 5, 0, 2)
    assert overview.invitations.to_json() == {"used": 5, "weekly_cap": 5, "left": 0, "warning": True}


def test_the_overview_reports_connection_inbox_campaigns_and_standing(
    services: Services, sandbox: SandboxGateway, account_id: int, linkedin: str
) -> None:
    """Connected, one conversation with one unread message, the running campaign, the sandbox's InMail credits."""
    ids = _ids(services, account_id, 1)
    launched = services.linkedin.launch(account_id, LaunchInput("A", "invite", ids))
    sandbox.inject_message(linkedin, "someone-else", "Hello")

    overview = services.linkedin.overview(account_id)

    assert overview.connection.connected is True
    assert (overview.conversations, overview.unread_messages) == (1, 1)
    assert [c.id for c in overview.active_campaigns] == [launched.campaign.id]
    assert (overview.inmail_balance, overview.recruiter_contract) == (40, False)
    assert overview.invitations.warning is False


def test_cancelling_a_sequence_skips_its_pending_follow_ups(
    services: Services, clock: FakeClock, account_id: int, linkedin: str, drain: Callable[[], None]
) -> None:
    """Step one went; cancelling leaves no follow-up pending (each `skipped`, `cancelled`)."""
    ids = _ids(services, account_id, 2)
    steps = (SequenceStep("Hello"), SequenceStep("Again", wait_days=3))
    launched = services.linkedin.launch(account_id, LaunchInput("Seq", "sequence", ids, sequence_messages=steps))
    drain()

    services.campaigns.cancel(account_id, launched.campaign.id)

    with services.dependencies.uow.workspace(account_id, readonly=True) as uow:
        assert uow.linkedin_campaigns.statuses(launched.campaign.id) == {"skipped": 2}
