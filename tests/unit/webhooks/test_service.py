"""WebhookService over the in-memory fakes: subscriptions, secrets, fan-out, test, log, redelivery."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import pytest

from engage_core.contacts.model import ContactInput
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.events import CATALOGUE, EVENTS_MAX, EXTENSIONS, TEST_EVENT
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import FakeCipher, FakeClock, FakeSender, InMemoryDeliveryQueue, InMemoryStore
from engage_core.webhooks.delivery import DeliveryWorker
from engage_core.webhooks.fakes import WebhooksTables
from engage_core.webhooks.model import Attempt, Outcome, Subscription
from engage_core.webhooks.service import RevealedSecret, WebhookInput, WebhookPatch, WebhookService
from engage_core.webhooks.signatures import sign_body

URL = "https://hooks.example.com/in"
NewWebhook = Callable[..., RevealedSecret]
MakeWorker = Callable[..., tuple[DeliveryWorker, FakeSender]]


class RecordingGuard:
    """A TargetGuard that refuses the hosts it is told to, and records every URL it is asked about."""

    def __init__(self) -> None:
        self.refused: set[str] = set()
        self.asked: list[str] = []

    def refusal(self, url: str) -> str | None:
        self.asked.append(url)
        return "The address 10.0.0.1 is not allowed as a target." if any(h in url for h in self.refused) else None


@pytest.fixture
def cipher() -> FakeCipher:
    return FakeCipher()


@pytest.fixture
def guard() -> RecordingGuard:
    return RecordingGuard()


@pytest.fixture
def services(uow: Any, clock: FakeClock, cipher: FakeCipher, guard: RecordingGuard) -> Services:
    """The services with webhooks wired to the fake cipher and the recording guard."""
    return Services.build(uow, clock, cipher=cipher, guard=guard)


@pytest.fixture
def new_webhook(services: Services, account_id: int) -> NewWebhook:
    """`new_webhook(name="Hook", url=URL, events=(), is_active=True, account=None) -> RevealedSecret`."""

    def make(
        name: str = "Hook",
        url: str = URL,
        events: Sequence[str] = (),
        is_active: bool = True,
        account: int | None = None,
    ) -> RevealedSecret:
        data = WebhookInput(name=name, url=url, events=events, is_active=is_active)
        return services.webhooks.create(account_id if account is None else account, data)

    return make


@pytest.fixture
def make_worker(store: InMemoryStore, clock: FakeClock, cipher: FakeCipher) -> MakeWorker:
    """`make_worker(status=200) -> (DeliveryWorker, FakeSender)`: every send answers `status`."""

    def make(status: int = 200) -> tuple[DeliveryWorker, FakeSender]:
        sender = FakeSender(lambda _request: Outcome(status, "", None))
        return DeliveryWorker(InMemoryDeliveryQueue(store), sender, cipher, clock), sender

    return make


@pytest.fixture
def add_contact(services: Services, account_id: int) -> Callable[..., None]:
    """`add_contact(name="Ada", account=None)`: creates a contact, which emits contact.created."""

    def make(name: str = "Ada", account: int | None = None) -> None:
        services.contacts.create(account_id if account is None else account, ContactInput(name=name, type="instagram"))

    return make


def errors_of(call: Callable[[], Any]) -> dict[str, list[str]]:
    with pytest.raises(ValidationFailed) as caught:
        call()
    return caught.value.errors


def log(services: Services, account_id: int, webhook_id: int, status: str | None = None) -> Sequence[Attempt]:
    return services.webhooks.deliveries(account_id, webhook_id, status, PageRequest(per_page=100)).items


def fail_permanently(worker: DeliveryWorker, clock: FakeClock) -> None:
    """Run the worker through the whole retry schedule."""
    for _ in range(4):
        worker.run_once()
        clock.advance(minutes=30)


# -- create ----------------------------------------------------------------------------------------


def test_create_returns_the_subscription(new_webhook: NewWebhook) -> None:
    """The created subscription has the given name, url, events and state."""
    created = new_webhook(name="CRM", events=["contact.created"])
    assert (created.subscription.name, created.subscription.url) == ("CRM", URL)
    assert (created.subscription.events, created.subscription.is_active) == (("contact.created",), True)


def test_create_reveals_a_64_character_secret(new_webhook: NewWebhook) -> None:
    """The plaintext secret is shown on create, 64 characters long."""
    assert len(new_webhook().secret) == 64


def test_the_secret_is_stored_encrypted(new_webhook: NewWebhook, store: InMemoryStore, cipher: FakeCipher) -> None:
    """What is stored is the cipher's ciphertext, never the plaintext secret."""
    created = new_webhook()
    stored = store.state.of(WebhooksTables).webhook_secrets[created.subscription.id]
    assert stored != created.secret
    assert created.secret not in stored
    assert cipher.decrypt(stored) == created.secret


def test_each_webhook_gets_its_own_secret(new_webhook: NewWebhook) -> None:
    """Two webhooks never share a secret."""
    assert new_webhook().secret != new_webhook().secret


def test_the_secret_is_not_part_of_the_subscription(
    services: Services, account_id: int, new_webhook: NewWebhook
) -> None:
    """get, list and update return subscriptions, which carry no secret."""
    webhook_id = new_webhook().subscription.id
    returned = [
        services.webhooks.get(account_id, webhook_id),
        *services.webhooks.list(account_id),
        services.webhooks.update(account_id, webhook_id, WebhookPatch(name="Renamed")),
    ]
    assert all(isinstance(item, Subscription) for item in returned)
    assert "secret" not in {field.name for field in attrs.fields(Subscription)}


def test_the_name_is_trimmed(new_webhook: NewWebhook) -> None:
    """Surrounding spaces are removed from the name."""
    assert new_webhook(name="  CRM  ").subscription.name == "CRM"


@pytest.mark.parametrize("name", ["", "   ", "x" * 256])
def test_a_missing_or_long_name_is_refused(new_webhook: NewWebhook, name: str) -> None:
    """The name is required and at most 255 characters."""
    assert list(errors_of(lambda: new_webhook(name=name))) == ["name"]


def test_a_255_character_name_is_accepted(new_webhook: NewWebhook) -> None:
    """255 characters is the limit, inclusive."""
    assert len(new_webhook(name="x" * 255).subscription.name) == 255


@pytest.mark.parametrize("url", ["http://hooks.example.com/in", "ftp://hooks.example.com", "not a url", "https://"])
def test_only_https_targets_are_accepted(new_webhook: NewWebhook, url: str) -> None:
    """http and other schemes, and host-less URLs, are refused on `url` (SPEC 4: HTTP targets are rejected)."""
    assert list(errors_of(lambda: new_webhook(url=url))) == ["url"]


def test_a_target_the_guard_refuses_is_refused(new_webhook: NewWebhook, guard: RecordingGuard) -> None:
    """A URL whose host the SSRF guard refuses is a 422 on `url` with the guard's reason."""
    guard.refused.add("internal.example")
    errors = errors_of(lambda: new_webhook(url="https://internal.example/hook"))
    assert errors == {"url": ["The address 10.0.0.1 is not allowed as a target."]}


def test_the_guard_is_asked_about_the_trimmed_url(new_webhook: NewWebhook, guard: RecordingGuard) -> None:
    """The SSRF guard checks the URL that will be stored."""
    created = new_webhook(url=f"  {URL} ")
    assert created.subscription.url == URL
    assert guard.asked == [URL]


def test_unknown_events_are_refused_by_index(new_webhook: NewWebhook) -> None:
    """Each unknown event name is reported on `events.N`, N its index in the request."""
    errors = errors_of(lambda: new_webhook(events=["contact.created", "contact.exploded", "order.created", "nope"]))
    assert list(errors) == ["events.1", "events.3"]


def test_more_events_than_the_limit_are_refused_on_events(new_webhook: NewWebhook) -> None:
    """A subscription listing more than `EVENTS_MAX` event names is refused on `events` alone."""
    errors = errors_of(lambda: new_webhook(events=["contact.created"] * (EVENTS_MAX + 1)))
    assert list(errors) == ["events"]


def test_every_error_is_reported_at_once(new_webhook: NewWebhook) -> None:
    """Name, url and events errors come together in one 422."""
    errors = errors_of(lambda: new_webhook(name="", url="http://x", events=["bad"]))
    assert set(errors) == {"name", "url", "events.0"}


def test_every_catalogue_event_can_be_subscribed(new_webhook: NewWebhook) -> None:
    """All SPEC 6 events and webhook.test are accepted."""
    created = new_webhook(events=[*CATALOGUE, TEST_EVENT])
    assert created.subscription.events == (*CATALOGUE, TEST_EVENT)


def test_repeated_events_are_kept_once(new_webhook: NewWebhook) -> None:
    """Duplicates in `events` are dropped, keeping the first order."""
    created = new_webhook(events=["order.created", "contact.created", "order.created"])
    assert created.subscription.events == ("order.created", "contact.created")


def test_event_names_are_the_catalogue_the_test_event_and_the_extensions() -> None:
    """GET /webhooks/events lists SPEC 6's events and webhook.test, then the extension events."""
    assert WebhookService.event_names() == [*CATALOGUE, TEST_EVENT, *EXTENSIONS]


def test_an_extension_event_can_be_subscribed(new_webhook: NewWebhook) -> None:
    """A subscription may name the extension events (`conversation.*`)."""
    created = new_webhook(events=["conversation.handed_over", *EXTENSIONS])
    assert created.subscription.events == EXTENSIONS


# -- read, update, delete --------------------------------------------------------------------------


def test_list_is_oldest_first(services: Services, account_id: int, new_webhook: NewWebhook) -> None:
    """Subscriptions are listed in creation order."""
    ids = [new_webhook(name=f"H{i}").subscription.id for i in range(3)]
    assert [s.id for s in services.webhooks.list(account_id)] == ids


def test_update_changes_only_what_is_given(services: Services, account_id: int, new_webhook: NewWebhook) -> None:
    """A patch with is_active only leaves name, url and events alone."""
    created = new_webhook(events=["contact.created"]).subscription
    updated = services.webhooks.update(account_id, created.id, WebhookPatch(is_active=False))
    assert updated == attrs.evolve(created, is_active=False, updated_at=updated.updated_at)
    assert services.webhooks.get(account_id, created.id) == updated


def test_update_moves_updated_at(
    services: Services, account_id: int, new_webhook: NewWebhook, clock: FakeClock
) -> None:
    """An update stamps updated_at with the current time."""
    created = new_webhook().subscription
    later = clock.advance(minutes=5)
    assert services.webhooks.update(account_id, created.id, WebhookPatch(name="New")).updated_at == later


def test_update_validates_like_create(services: Services, account_id: int, new_webhook: NewWebhook) -> None:
    """An http url or an unknown event in a patch is refused on its field."""
    webhook_id = new_webhook().subscription.id
    patch = WebhookPatch(url="http://hooks.example.com", events=["contact.created", "nope"])
    assert set(errors_of(lambda: services.webhooks.update(account_id, webhook_id, patch))) == {"url", "events.1"}


def test_delete_removes_the_subscription_and_its_log(
    services: Services, account_id: int, new_webhook: NewWebhook, store: InMemoryStore
) -> None:
    """After delete the webhook is not found and its queued deliveries are gone."""
    webhook_id = new_webhook().subscription.id
    services.webhooks.send_test(account_id, webhook_id)
    services.webhooks.delete(account_id, webhook_id)
    with pytest.raises(NotFound):
        services.webhooks.get(account_id, webhook_id)
    assert store.state.of(WebhooksTables).attempts == {}


# -- the secret rotates ----------------------------------------------------------------------------


def test_regenerate_reveals_a_new_secret(services: Services, account_id: int, new_webhook: NewWebhook) -> None:
    """Regenerate returns a different 64-character secret."""
    created = new_webhook()
    regenerated = services.webhooks.regenerate_secret(account_id, created.subscription.id)
    assert len(regenerated.secret) == 64
    assert regenerated.secret != created.secret


def test_regenerate_stores_the_new_secret_encrypted(
    services: Services, account_id: int, new_webhook: NewWebhook, store: InMemoryStore, cipher: FakeCipher
) -> None:
    """The stored ciphertext is replaced by the new secret's."""
    webhook_id = new_webhook().subscription.id
    regenerated = services.webhooks.regenerate_secret(account_id, webhook_id)
    stored = store.state.of(WebhooksTables).webhook_secrets[webhook_id]
    assert stored != regenerated.secret
    assert cipher.decrypt(stored) == regenerated.secret


def test_the_next_attempt_is_signed_with_the_new_secret(
    services: Services, account_id: int, new_webhook: NewWebhook, make_worker: MakeWorker
) -> None:
    """A delivery queued before the rotation and sent after it is signed with the new secret."""
    created = new_webhook()
    services.webhooks.send_test(account_id, created.subscription.id)
    new = services.webhooks.regenerate_secret(account_id, created.subscription.id).secret
    worker, sender = make_worker()
    worker.run_once()
    [request] = sender.sent
    assert request.headers["X-Service-Signature-256"] == sign_body(new, request.body)
    assert request.headers["X-Service-Signature-256"] != sign_body(created.secret, request.body)


# -- fan-out of events -----------------------------------------------------------------------------


def test_an_event_is_queued_for_an_active_subscription(
    services: Services, account_id: int, new_webhook: NewWebhook, add_contact: Callable[..., None]
) -> None:
    """Creating a contact queues one pending contact.created attempt, attempt number 1."""
    webhook_id = new_webhook().subscription.id
    add_contact()
    [attempt] = log(services, account_id, webhook_id)
    assert (attempt.event_type, attempt.status, attempt.attempt_number) == ("contact.created", "pending", 1)


def test_a_disabled_subscription_gets_no_deliveries(
    services: Services, account_id: int, new_webhook: NewWebhook, add_contact: Callable[..., None]
) -> None:
    """Events are not queued while a subscription is disabled (SPEC 3, 6)."""
    webhook_id = new_webhook(is_active=False).subscription.id
    add_contact()
    assert log(services, account_id, webhook_id) == []


def test_a_re_enabled_subscription_gets_only_later_events(
    services: Services, account_id: int, new_webhook: NewWebhook, add_contact: Callable[..., None]
) -> None:
    """Events that happened while disabled are not sent after re-enabling."""
    webhook_id = new_webhook(is_active=False).subscription.id
    add_contact("Before")
    services.webhooks.update(account_id, webhook_id, WebhookPatch(is_active=True))
    add_contact("After")
    assert len(log(services, account_id, webhook_id)) == 1


def test_attempts_queued_before_disabling_wait_until_enabled(
    services: Services,
    account_id: int,
    new_webhook: NewWebhook,
    add_contact: Callable[..., None],
    make_worker: MakeWorker,
) -> None:
    """A delivery queued while active is not sent while the subscription is disabled, and is sent once enabled."""
    webhook_id = new_webhook().subscription.id
    add_contact()
    services.webhooks.update(account_id, webhook_id, WebhookPatch(is_active=False))
    worker, sender = make_worker()
    assert worker.run_once() == 0
    services.webhooks.update(account_id, webhook_id, WebhookPatch(is_active=True))
    assert worker.run_once() == 1
    assert len(sender.sent) == 1


def test_the_events_filter_is_honoured(
    services: Services, account_id: int, new_webhook: NewWebhook, add_contact: Callable[..., None]
) -> None:
    """A subscription to contact.deleted only gets nothing for contact.created."""
    webhook_id = new_webhook(events=["contact.deleted"]).subscription.id
    add_contact()
    assert log(services, account_id, webhook_id) == []


def test_an_empty_filter_means_every_event(
    services: Services, account_id: int, new_webhook: NewWebhook, add_contact: Callable[..., None]
) -> None:
    """A subscription without events gets contact.created (and every other event)."""
    webhook_id = new_webhook(events=[]).subscription.id
    add_contact()
    assert [a.event_type for a in log(services, account_id, webhook_id)] == ["contact.created"]


def test_each_subscription_gets_its_own_delivery(
    services: Services, account_id: int, new_webhook: NewWebhook, add_contact: Callable[..., None]
) -> None:
    """Two subscriptions each get one attempt, with different delivery ids."""
    first, second = new_webhook().subscription.id, new_webhook().subscription.id
    add_contact()
    [a], [b] = log(services, account_id, first), log(services, account_id, second)
    assert a.delivery_id != b.delivery_id


def test_events_of_another_account_are_not_delivered(
    services: Services,
    account_id: int,
    new_account: Callable[..., int],
    new_webhook: NewWebhook,
    add_contact: Callable[..., None],
) -> None:
    """A subscription receives only its own account's events."""
    webhook_id = new_webhook().subscription.id
    add_contact(account=new_account("Other"))
    assert log(services, account_id, webhook_id) == []


# -- test deliveries -------------------------------------------------------------------------------


def test_send_test_queues_a_webhook_test_delivery(
    services: Services, account_id: int, new_webhook: NewWebhook, store: InMemoryStore
) -> None:
    """POST /webhooks/{id}/test queues a pending webhook.test with message, webhook_id and webhook_name."""
    created = new_webhook(name="CRM").subscription
    attempt = services.webhooks.send_test(account_id, created.id)
    assert (attempt.event_type, attempt.status, attempt.attempt_number) == (TEST_EVENT, "pending", 1)
    data = dict(store.state.of(WebhooksTables).attempts[attempt.id].payload)
    assert set(data) == {"message", "webhook_id", "webhook_name"}
    assert (data["webhook_id"], data["webhook_name"]) == (created.id, "CRM")


def test_send_test_ignores_the_events_filter(services: Services, account_id: int, new_webhook: NewWebhook) -> None:
    """A test is sent even to a subscription filtered to other events."""
    webhook_id = new_webhook(events=["order.created"]).subscription.id
    services.webhooks.send_test(account_id, webhook_id)
    assert [a.event_type for a in log(services, account_id, webhook_id)] == [TEST_EVENT]


def test_send_test_is_delivered_with_the_test_payload(
    services: Services, account_id: int, new_webhook: NewWebhook, make_worker: MakeWorker
) -> None:
    """The worker sends webhook.test with the X-Service-Event header and the test data."""
    webhook_id = new_webhook(name="CRM").subscription.id
    services.webhooks.send_test(account_id, webhook_id)
    worker, sender = make_worker()
    worker.run_once()
    [request] = sender.sent
    assert request.headers["X-Service-Event"] == TEST_EVENT
    assert json.loads(request.body)["data"]["webhook_name"] == "CRM"


# -- the delivery log ------------------------------------------------------------------------------


@pytest.mark.parametrize("status", ["pending", "delivered", "failed"])
def test_deliveries_filter_by_status(
    services: Services,
    account_id: int,
    new_webhook: NewWebhook,
    make_worker: MakeWorker,
    clock: FakeClock,
    status: str,
) -> None:
    """The status filter returns only attempts with that status."""
    ok = new_webhook(url="https://ok.example.com/").subscription.id
    worker, _ = make_worker()
    services.webhooks.send_test(account_id, ok)
    worker.run_once()  # delivered
    failing, _ = make_worker(500)
    services.webhooks.send_test(account_id, ok)
    failing.run_once()  # failed, and a pending retry
    found = log(services, account_id, ok, status)
    assert len(found) == 1 and found[0].status == status


def test_deliveries_are_newest_first(services: Services, account_id: int, new_webhook: NewWebhook) -> None:
    """The log lists the most recent attempt first."""
    webhook_id = new_webhook().subscription.id
    ids = [services.webhooks.send_test(account_id, webhook_id).id for _ in range(3)]
    assert [a.id for a in log(services, account_id, webhook_id)] == ids[::-1]


def test_an_unknown_status_filter_is_refused(services: Services, account_id: int, new_webhook: NewWebhook) -> None:
    """A status outside pending/delivered/failed is a 422 on `status`."""
    webhook_id = new_webhook().subscription.id
    assert list(errors_of(lambda: log(services, account_id, webhook_id, "lost"))) == ["status"]


def test_a_delivered_attempt_records_the_answer(
    services: Services,
    account_id: int,
    new_webhook: NewWebhook,
    store: InMemoryStore,
    clock: FakeClock,
    cipher: FakeCipher,
) -> None:
    """The log keeps the receiver's status code and body excerpt."""
    webhook_id = new_webhook().subscription.id
    services.webhooks.send_test(account_id, webhook_id)
    sender = FakeSender(lambda _r: Outcome(201, "created", None))
    DeliveryWorker(InMemoryDeliveryQueue(store), sender, cipher, clock).run_once()
    [attempt] = log(services, account_id, webhook_id)
    assert (attempt.status, attempt.response_status_code, attempt.response_body) == ("delivered", 201, "created")


# -- redelivery ------------------------------------------------------------------------------------


def test_redeliver_requeues_a_failed_delivery(
    services: Services, account_id: int, new_webhook: NewWebhook, make_worker: MakeWorker, clock: FakeClock
) -> None:
    """A permanently failed delivery gets one more pending attempt: same delivery_id, attempt_number + 1."""
    webhook_id = new_webhook().subscription.id
    queued = services.webhooks.send_test(account_id, webhook_id)
    worker, _ = make_worker(500)
    fail_permanently(worker, clock)
    again = services.webhooks.redeliver(account_id, webhook_id, queued.delivery_id)
    assert (again.delivery_id, again.attempt_number, again.status) == (queued.delivery_id, 5, "pending")
    assert again.event_type == TEST_EVENT


def test_a_redelivery_carries_the_same_envelope(
    services: Services, account_id: int, new_webhook: NewWebhook, make_worker: MakeWorker, clock: FakeClock
) -> None:
    """The redelivered attempt is sent with the original delivery_id and data."""
    webhook_id = new_webhook().subscription.id
    queued = services.webhooks.send_test(account_id, webhook_id)
    worker, sender = make_worker(500)
    fail_permanently(worker, clock)
    services.webhooks.redeliver(account_id, webhook_id, queued.delivery_id)
    worker.run_once()
    first, last = json.loads(sender.sent[0].body), json.loads(sender.sent[-1].body)
    assert len(sender.sent) == 5
    assert (last["delivery_id"], last["data"]) == (first["delivery_id"], first["data"])


def test_a_failed_redelivery_is_not_retried(
    services: Services, account_id: int, new_webhook: NewWebhook, make_worker: MakeWorker, clock: FakeClock
) -> None:
    """A manual attempt that fails stays failed: no automatic retry follows it."""
    webhook_id = new_webhook().subscription.id
    queued = services.webhooks.send_test(account_id, webhook_id)
    worker, sender = make_worker(500)
    fail_permanently(worker, clock)
    services.webhooks.redeliver(account_id, webhook_id, queued.delivery_id)
    fail_permanently(worker, clock)
    assert len(sender.sent) == 5
    assert log(services, account_id, webhook_id, "pending") == []


@pytest.mark.parametrize("status", [200, 500])
def test_only_a_failed_delivery_can_be_redelivered(
    services: Services, account_id: int, new_webhook: NewWebhook, make_worker: MakeWorker, status: int
) -> None:
    """A delivered delivery, or one with a retry still pending, is a 422 on `delivery_id`."""
    webhook_id = new_webhook().subscription.id
    queued = services.webhooks.send_test(account_id, webhook_id)
    worker, _ = make_worker(status)
    worker.run_once()  # 200: delivered; 500: failed with attempt 2 pending
    errors = errors_of(lambda: services.webhooks.redeliver(account_id, webhook_id, queued.delivery_id))
    assert list(errors) == ["delivery_id"]


def test_a_pending_delivery_cannot_be_redelivered(services: Services, account_id: int, new_webhook: NewWebhook) -> None:
    """A delivery not yet attempted is a 422 on `delivery_id`."""
    webhook_id = new_webhook().subscription.id
    queued = services.webhooks.send_test(account_id, webhook_id)
    assert list(errors_of(lambda: services.webhooks.redeliver(account_id, webhook_id, queued.delivery_id))) == [
        "delivery_id"
    ]


def test_an_unknown_delivery_is_not_found(services: Services, account_id: int, new_webhook: NewWebhook) -> None:
    """Redelivering a delivery id the webhook never had is NotFound."""
    webhook_id = new_webhook().subscription.id
    with pytest.raises(NotFound):
        services.webhooks.redeliver(account_id, webhook_id, "00000000-0000-0000-0000-000000000000")


def test_a_delivery_of_another_webhook_is_not_found(
    services: Services, account_id: int, new_webhook: NewWebhook, make_worker: MakeWorker, clock: FakeClock
) -> None:
    """A delivery id is looked up within the webhook named in the path."""
    first, second = new_webhook().subscription.id, new_webhook().subscription.id
    queued = services.webhooks.send_test(account_id, first)
    worker, _ = make_worker(500)
    fail_permanently(worker, clock)
    with pytest.raises(NotFound):
        services.webhooks.redeliver(account_id, second, queued.delivery_id)


# -- tenancy ---------------------------------------------------------------------------------------

CALLS: dict[str, Callable[[Services, int, int], object]] = {
    "get": lambda s, a, w: s.webhooks.get(a, w),
    "update": lambda s, a, w: s.webhooks.update(a, w, WebhookPatch(is_active=False)),
    "delete": lambda s, a, w: s.webhooks.delete(a, w),
    "regenerate_secret": lambda s, a, w: s.webhooks.regenerate_secret(a, w),
    "send_test": lambda s, a, w: s.webhooks.send_test(a, w),
    "deliveries": lambda s, a, w: s.webhooks.deliveries(a, w, None, PageRequest()),
    "redeliver": lambda s, a, w: s.webhooks.redeliver(a, w, "d"),
}


@pytest.mark.parametrize("call", list(CALLS))
def test_another_accounts_webhook_is_not_found(
    services: Services, new_account: Callable[..., int], new_webhook: NewWebhook, call: str
) -> None:
    """Every operation on a webhook of another account raises NotFound, and changes nothing."""
    other = new_account("Other")
    theirs = new_webhook(account=other).subscription
    with pytest.raises(NotFound, match="Webhook"):
        CALLS[call](services, new_account("Mine"), theirs.id)
    assert services.webhooks.get(other, theirs.id) == theirs


def test_list_shows_only_the_accounts_own(
    services: Services, account_id: int, new_account: Callable[..., int], new_webhook: NewWebhook
) -> None:
    """Another account's subscriptions are not listed."""
    new_webhook(account=new_account("Other"))
    mine = new_webhook().subscription.id
    assert [s.id for s in services.webhooks.list(account_id)] == [mine]


def test_a_missing_webhook_is_not_found(services: Services, account_id: int) -> None:
    """An id that does not exist is NotFound."""
    with pytest.raises(NotFound):
        services.webhooks.get(account_id, 999)


def test_send_test_refuses_a_disabled_subscription(
    services: Services, account_id: int, new_webhook: NewWebhook
) -> None:
    """A test of a disabled webhook is refused on `is_active` rather than left waiting unsent."""
    created = new_webhook(is_active=False)
    with pytest.raises(ValidationFailed) as raised:
        services.webhooks.send_test(account_id, created.subscription.id)
    assert list(raised.value.errors) == ["is_active"]


def test_disabling_does_not_recheck_the_unchanged_url(
    services: Services, account_id: int, new_webhook: NewWebhook, guard: RecordingGuard
) -> None:
    """An update that leaves the url alone does not ask the guard again (its host may be down)."""
    created = new_webhook()
    guard.asked.clear()
    guard.refused.add("hooks.example.com")
    updated = services.webhooks.update(account_id, created.subscription.id, WebhookPatch(is_active=False))
    assert (updated.is_active, guard.asked) == (False, [])
