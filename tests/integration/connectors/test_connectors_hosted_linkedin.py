"""The hosted-provider gateway's LinkedIn calls (people search, invitations, InMail balance) over real
HTTP against the local fake provider on 127.0.0.1, and an invite campaign sent through it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_provider import FakeProvider

from engage_connectors.hosted_gateway import HostedGateway
from engage_connectors.hosted_messaging import HostedMessagingClient, Provider
from engage_core.jobs.runner import JobRunner
from engage_core.linkedin.service import LaunchInput
from engage_core.messaging.channel_service import CredentialsInput
from engage_core.messaging.gateway import GatewayRejected, GatewayUnavailable
from engage_core.messaging.people import PeopleQuery
from engage_core.services import Services
from engage_core.testing import FakeClock, InMemoryJobQueue, InMemoryUnitOfWorkFactory

LOGIN = ("ada@example.com", "secret-pw")


@pytest.fixture
def provider() -> Iterator[FakeProvider]:
    with FakeProvider() as fake:
        fake.add_login(Provider.LINKEDIN, *LOGIN)
        yield fake


@pytest.fixture
def gateway(provider: FakeProvider) -> Iterator[HostedGateway]:
    gateway = HostedGateway(HostedMessagingClient(provider.url, provider.api_key, timeout=5.0), FakeClock())
    yield gateway
    gateway.close()


@pytest.fixture
def account(gateway: HostedGateway) -> str:
    """A connected LinkedIn account at the provider."""
    return gateway.connect_credentials("linkedin", *LOGIN, "SA").provider_account_id


def test_a_search_reads_the_providers_people_and_cursor(gateway: HostedGateway, account: str) -> None:
    """Items carry the SPEC's fields (company from the current position); the cursor pages on."""
    first = gateway.search_people(account, PeopleQuery(keywords="engineer", limit=2))
    second = gateway.search_people(account, PeopleQuery(keywords="engineer", limit=2, cursor=first.next_cursor))

    assert first.items[0].provider_id == "sbx-li-00001"
    assert (first.items[0].company, first.items[0].profile_url) == (
        "Acme",
        "https://www.linkedin.com/in/ada-lovelace-1",
    )
    assert not {p.provider_id for p in first.items} & {p.provider_id for p in second.items}


def test_title_and_company_go_as_advanced_keywords_and_location_joins_keywords(
    gateway: HostedGateway, provider: FakeProvider, account: str
) -> None:
    """The classic search body: keywords with the location's words, title and company apart."""
    gateway.search_people(account, PeopleQuery(keywords="sales", location="Riyadh", title="Head", company="Acme"))

    assert provider.searches[-1] == {
        "api": "classic",
        "category": "people",
        "keywords": "sales Riyadh",
        "advanced_keywords": {"title": "Head", "company": "Acme"},
    }


def test_an_invitation_reaches_the_provider_with_its_note(
    gateway: HostedGateway, provider: FakeProvider, account: str
) -> None:
    """The provider records the invitation and names it."""
    sent = gateway.invite(account, "sbx-li-00007", "Hi!")

    assert provider.invitations == {(account, "sbx-li-00007"): "Hi!"}
    assert sent.provider_message_id


def test_a_second_invitation_to_the_same_member_is_rejected(gateway: HostedGateway, account: str) -> None:
    """The provider's 422 is a GatewayRejected: retrying will not help."""
    gateway.invite(account, "sbx-li-00007", None)

    with pytest.raises(GatewayRejected):
        gateway.invite(account, "sbx-li-00007", None)


def test_the_standing_reads_the_inmail_balance(gateway: HostedGateway, account: str) -> None:
    """Premium credits only: the balance, and no Recruiter contract."""
    standing = gateway.linkedin_standing(account)

    assert (standing.inmail_balance, standing.recruiter) == (25, False)


def test_a_provider_outage_is_gateway_unavailable(gateway: HostedGateway, provider: FakeProvider, account: str) -> None:
    """A 5xx from the provider: nothing happened, retry later."""
    provider.outage("error")

    with pytest.raises(GatewayUnavailable):
        gateway.search_people(account, PeopleQuery(keywords="x"))


def test_an_invite_campaign_sends_its_invitations_through_the_provider(
    gateway: HostedGateway, provider: FakeProvider
) -> None:
    """Launched over the fakes, sent by the worker through the real adapter: one invitation per member."""
    clock = FakeClock()
    uow = InMemoryUnitOfWorkFactory()
    services = Services.build(uow, clock, gateway=gateway, sleep=lambda s: clock.advance(seconds=s))
    account_id = services.accounts.create("Acme").account.id
    services.channels.connect_credentials(account_id, "linkedin", CredentialsInput(*LOGIN))
    ids = tuple(
        p.provider_id for p in services.linkedin.search(account_id, PeopleQuery(title="founder", limit=3)).items
    )

    launched = services.linkedin.launch(account_id, LaunchInput("Founders", "invite", ids, invite_note="Hello"))
    runner = JobRunner(InMemoryJobQueue(uow.store), services.job_handlers(), clock)
    while runner.run_once():
        pass

    assert sorted(member for (_, member) in provider.invitations) == sorted(ids)
    assert services.campaigns.get(account_id, launched.campaign.id).counters.sent == 3
