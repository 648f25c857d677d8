"""HttpStorePlatform against a real local store connector (`fake_store.FakeStore`), and the order
service pushing status changes through it (SPEC 3: store-sourced orders; SPEC 7: 422 on rejection)."""

from __future__ import annotations

import logging
import socket
import time
from collections.abc import Callable, Iterator

import attrs
import pytest
from fake_store import TOKEN, FakeStore

from engage_connectors.store_platform import HttpStorePlatform, NoStorePlatform
from engage_core.commerce.order_service import OrderPatch, StoreOrderInput, StoreOrderItemInput
from engage_core.commerce.orders import Order, StoreRejected
from engage_core.kernel.errors import ValidationFailed
from engage_core.services import Services
from engage_core.settings import Settings
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory

MakePlatform = Callable[..., HttpStorePlatform]


@pytest.fixture
def store() -> Iterator[FakeStore]:
    with FakeStore() as fake:
        yield fake


@pytest.fixture
def make_platform(store: FakeStore) -> Iterator[MakePlatform]:
    """`make_platform(url=store.url, token=TOKEN, timeout=5.0)`, closed after the test."""
    made: list[HttpStorePlatform] = []

    def make(*, url: str | None = None, token: str = TOKEN, timeout: float = 5.0) -> HttpStorePlatform:
        platform = HttpStorePlatform(url or store.url, token, timeout=timeout)
        made.append(platform)
        return platform

    yield make
    for platform in made:
        platform.close()


@pytest.fixture
def platform(make_platform: MakePlatform) -> HttpStorePlatform:
    return make_platform()


@pytest.fixture
def services(platform: HttpStorePlatform) -> Services:
    return Services.build(InMemoryUnitOfWorkFactory(), FakeClock(), store=platform)


@pytest.fixture
def account_id(services: Services) -> int:
    return services.accounts.create("Acme").account.id


def import_order(services: Services, account_id: int, reference: str = "wc-1001") -> Order:
    data = StoreOrderInput(
        external_reference=reference,
        customer_name="Ada Lovelace",
        items=[StoreOrderItemInput("Tea", 2, "3.50", product_sku="TEA-1")],
    )
    return services.orders.import_store_order(account_id, data).order


@pytest.fixture
def order(services: Services, account_id: int) -> Order:
    return import_order(services, account_id)


def rejection(platform: HttpStorePlatform, order: Order, slug: str = "confirmed") -> str:
    with pytest.raises(StoreRejected) as caught:
        platform.push_status(7, order, slug)
    return caught.value.message


# -- the request -----------------------------------------------------------------------------------


def test_an_accepted_push_returns_quietly(platform: HttpStorePlatform, store: FakeStore, order: Order) -> None:
    """A 200 answer is acceptance: push_status returns and the store got one POST."""
    platform.push_status(7, order, "confirmed")
    assert [call.method for call in store.calls] == ["POST"]


@pytest.mark.parametrize("status", [200, 201, 202, 204])
def test_any_2xx_answer_is_acceptance(platform: HttpStorePlatform, store: FakeStore, order: Order, status: int) -> None:
    """Every 2xx status counts as accepted, with or without a body."""
    store.answer(status, b"")
    platform.push_status(7, order, "confirmed")


def test_the_push_names_the_workspace_order_reference_and_slug(
    platform: HttpStorePlatform, store: FakeStore, order: Order
) -> None:
    """The JSON body carries the account id, the local order id, the store reference and the slug."""
    platform.push_status(7, order, "canceled")
    [call] = store.calls
    assert call.body == {"account_id": 7, "order_id": order.id, "external_reference": "wc-1001", "status": "canceled"}


def test_the_push_goes_to_the_orders_status_path(platform: HttpStorePlatform, store: FakeStore, order: Order) -> None:
    """POST {base}/orders/{reference}/status, below the configured base path."""
    platform.push_status(7, order, "confirmed")
    [call] = store.calls
    assert (call.path, call.reference) == ("/connector/v1/orders/wc-1001/status", "wc-1001")


def test_the_reference_is_one_percent_encoded_path_segment(
    platform: HttpStorePlatform, store: FakeStore, services: Services, account_id: int
) -> None:
    """A reference with a slash, a space or a hash stays one segment and arrives intact."""
    odd = import_order(services, account_id, "shop/#10 01")
    platform.push_status(account_id, odd, "confirmed")
    [call] = store.calls
    assert call.path == "/connector/v1/orders/shop%2F%2310%2001/status"
    assert call.reference == "shop/#10 01"


@pytest.mark.parametrize("reference", [".", "..", "../..", "./status", "%2E%2E"])
def test_a_dot_reference_never_reaches_another_path(
    platform: HttpStorePlatform, store: FakeStore, order: Order, reference: str
) -> None:
    """A reference of dots (stored before references were checked) is still one segment of the status path."""
    platform.push_status(7, attrs.evolve(order, external_reference=reference), "confirmed")
    [call] = store.calls
    assert (call.path.startswith("/connector/v1/orders/"), call.reference) == (True, reference)


def test_a_trailing_slash_on_the_base_url_is_ignored(
    make_platform: MakePlatform, store: FakeStore, order: Order
) -> None:
    """`ENGAGE_STORE_URL` may end with a slash: no double slash reaches the store."""
    make_platform(url=store.url + "/").push_status(7, order, "confirmed")
    assert store.calls[0].path == "/connector/v1/orders/wc-1001/status"


def test_the_token_is_sent_as_a_bearer_token(platform: HttpStorePlatform, store: FakeStore, order: Order) -> None:
    """Authorization: Bearer <ENGAGE_STORE_TOKEN>."""
    platform.push_status(7, order, "confirmed")
    assert store.calls[0].authorization == f"Bearer {TOKEN}"


def test_an_order_without_a_reference_is_refused_without_a_call(
    platform: HttpStorePlatform, store: FakeStore, order: Order
) -> None:
    """Nothing can be addressed at the store without its reference: a rejection, and no request."""
    local = attrs.evolve(order, external_reference=None)
    assert "no reference at the store" in rejection(platform, local)
    assert store.calls == []


# -- what the answers mean -------------------------------------------------------------------------


def test_a_rejection_carries_the_stores_message(platform: HttpStorePlatform, store: FakeStore, order: Order) -> None:
    """A 4xx with a JSON `message` is a rejection with exactly that message."""
    store.reject("Order wc-1001 has shipped already.", status=409)
    assert rejection(platform, order) == "Order wc-1001 has shipped already."


def test_an_error_key_is_read_when_there_is_no_message(
    platform: HttpStorePlatform, store: FakeStore, order: Order
) -> None:
    """Bridges that answer `{"error": "..."}` are understood too."""
    store.answer(422, b'{"error": "Unknown status"}', {"Content-Type": "application/json"})
    assert rejection(platform, order) == "Unknown status"


def test_a_4xx_without_a_json_message_is_a_rejection_naming_the_status(
    platform: HttpStorePlatform, store: FakeStore, order: Order
) -> None:
    """A 4xx whose body says nothing usable still refuses, naming the HTTP status."""
    store.answer(400, b"<html>Bad Request</html>", {"Content-Type": "text/html"})
    assert rejection(platform, order) == "The store refused the status change (HTTP 400)."


def test_a_long_multi_line_message_is_cut_to_one_short_line(
    platform: HttpStorePlatform, store: FakeStore, order: Order
) -> None:
    """The store's message reaches the API client on one line of at most 500 characters."""
    store.reject("Refused:\n" + "x" * 2000)
    message = rejection(platform, order)
    assert (len(message), message[:10], "\n" in message) == (500, "Refused: x", False)


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_token_is_a_rejection_that_points_at_the_configuration(
    make_platform: MakePlatform, store: FakeStore, order: Order, status: int
) -> None:
    """401/403 from the connector say the token is wrong, not that the store refused the order."""
    store.reject("Token expired.", status=status)
    message = rejection(make_platform(), order)
    assert f"HTTP {status}" in message
    assert "ENGAGE_STORE_TOKEN" in message


def test_a_wrong_token_never_appears_in_the_message(make_platform: MakePlatform, order: Order) -> None:
    """The connector answers 401 to a wrong token; the rejection does not repeat the token."""
    message = rejection(make_platform(token="wrong-token-5ec2e7"), order)
    assert "ENGAGE_STORE_TOKEN" in message
    assert "wrong-token-5ec2e7" not in message


@pytest.mark.parametrize("status", [500, 502, 503])
def test_a_server_error_means_the_store_could_not_be_reached(
    platform: HttpStorePlatform, store: FakeStore, order: Order, status: int
) -> None:
    """5xx is a rejection saying the store could not be reached, not a refusal by the store."""
    store.fail(status)
    assert rejection(platform, order).startswith(f"The store could not be reached (it answered HTTP {status})")


def test_a_redirect_is_not_followed(platform: HttpStorePlatform, store: FakeStore, order: Order) -> None:
    """A 3xx answer is a rejection; the Location is never requested."""
    store.answer(307, b"", {"Location": store.url + "/elsewhere"})
    assert "could not be reached (it answered HTTP 307)" in rejection(platform, order)
    assert len(store.calls) == 1


def test_a_store_that_hangs_is_a_rejection_within_the_timeout(
    make_platform: MakePlatform, store: FakeStore, order: Order
) -> None:
    """No answer within the timeout: a rejection saying so, raised as soon as the timeout ends."""
    store.hang(30)
    platform = make_platform(timeout=0.5)
    started = time.monotonic()
    message = rejection(platform, order)
    assert time.monotonic() - started < 3
    assert message.startswith("The store could not be reached (it did not answer within 0.5 seconds)")


def test_a_refused_connection_is_a_rejection(make_platform: MakePlatform, order: Order) -> None:
    """Nothing listening on the port: a rejection saying the connection failed."""
    with socket.socket() as placeholder:  # bound, never listening: connections are refused
        placeholder.bind(("127.0.0.1", 0))
        port = placeholder.getsockname()[1]
        message = rejection(make_platform(url=f"http://127.0.0.1:{port}/connector"), order)
    assert message.startswith("The store could not be reached (the connection failed")


def test_failures_never_log_the_token(
    make_platform: MakePlatform, store: FakeStore, order: Order, caplog: pytest.LogCaptureFixture
) -> None:
    """Rejections and unreachable stores are logged for the operator, without the token."""
    caplog.set_level(logging.DEBUG)
    platform = make_platform()
    for answer in (lambda: store.reject("No."), lambda: store.fail(500)):
        answer()
        rejection(platform, order)
    assert "engage.store" in {record.name for record in caplog.records}
    assert TOKEN not in caplog.text


def test_the_platform_repr_hides_the_token(platform: HttpStorePlatform) -> None:
    """repr() names the connector URL only."""
    assert TOKEN not in repr(platform)


@pytest.mark.parametrize("url", ["ftp://store.example.com", "store.example.com", "http://", ""])
def test_a_base_url_that_is_not_http_is_refused(url: str) -> None:
    """The connector must be addressed by an http:// or https:// URL with a host."""
    with pytest.raises(ValueError, match="http:// or https://"):
        HttpStorePlatform(url, TOKEN)


def test_without_a_connector_every_push_is_refused_with_a_message(order: Order) -> None:
    """NoStorePlatform (no ENGAGE_STORE_URL) refuses, naming the missing setting."""
    with pytest.raises(StoreRejected, match="ENGAGE_STORE_URL"):
        NoStorePlatform().push_status(7, order, "confirmed")


# -- configuration ---------------------------------------------------------------------------------


def test_the_store_settings_are_read_from_the_environment() -> None:
    """ENGAGE_STORE_URL, ENGAGE_STORE_TOKEN and ENGAGE_STORE_TIMEOUT fill the store settings."""
    settings = Settings.from_env(
        {
            "ENGAGE_STORE_URL": " https://bridge.example.com/v1 ",
            "ENGAGE_STORE_TOKEN": "t0k",
            "ENGAGE_STORE_TIMEOUT": "2.5",
        }
    )
    assert (settings.store_url, settings.store_token, settings.store_timeout_seconds) == (
        "https://bridge.example.com/v1",
        "t0k",
        2.5,
    )


def test_without_store_variables_no_store_is_configured() -> None:
    """Unset, the URL and token are None and the timeout is 10 seconds."""
    settings = Settings.from_env({})
    assert (settings.store_url, settings.store_token, settings.store_timeout_seconds) == (None, None, 10.0)


def test_the_settings_repr_hides_the_store_token() -> None:
    """Printing the settings never shows the store token."""
    assert "t0k-secret" not in repr(Settings.from_env({"ENGAGE_STORE_TOKEN": "t0k-secret"}))


# -- the order service through the real adapter ----------------------------------------------------


def test_an_accepted_status_change_moves_the_order(services: Services, account_id: int, order: Order) -> None:
    """The store accepts: the local order is confirmed."""
    assert services.orders.update(account_id, order.id, OrderPatch(status="confirmed")).status == "confirmed"


def test_the_store_sees_the_workspace_reference_and_slug_of_a_change(
    services: Services, store: FakeStore, account_id: int, order: Order
) -> None:
    """The service pushes the new status with the account id and the order's store reference."""
    services.orders.update(account_id, order.id, OrderPatch(status="confirmed"))
    [call] = store.calls
    assert (call.reference, call.body["account_id"], call.body["order_id"], call.body["status"]) == (
        "wc-1001",
        account_id,
        order.id,
        "confirmed",
    )


def test_a_rejected_status_change_is_a_validation_failure_with_the_stores_message(
    services: Services, store: FakeStore, account_id: int, order: Order
) -> None:
    """The store's refusal becomes a 422-class error on `status` carrying its message."""
    store.reject("Order wc-1001 is locked by the warehouse.")
    with pytest.raises(ValidationFailed) as caught:
        services.orders.update(account_id, order.id, OrderPatch(status="confirmed"))
    assert caught.value.errors == {"status": ["Order wc-1001 is locked by the warehouse."]}


def test_a_rejected_status_change_leaves_the_order_unchanged(
    services: Services, store: FakeStore, account_id: int, order: Order
) -> None:
    """After a refusal the order is exactly as it was (status, updated_at, everything)."""
    store.reject("No.")
    with pytest.raises(ValidationFailed):
        services.orders.update(account_id, order.id, OrderPatch(status="confirmed"))
    assert services.orders.get(account_id, order.id) == order


def test_an_unreachable_store_leaves_the_order_unchanged(
    services: Services, store: FakeStore, account_id: int, order: Order
) -> None:
    """A 500 from the connector refuses the change too: nothing moves locally."""
    store.fail(500)
    with pytest.raises(ValidationFailed, match="could not be reached"):
        services.orders.update(account_id, order.id, OrderPatch(status="confirmed"))
    assert services.orders.get(account_id, order.id).status == "pending"


def test_cancelling_pushes_canceled_then_cancels_locally(
    services: Services, store: FakeStore, account_id: int, order: Order
) -> None:
    """POST /orders/{id}/cancel on a store order: the store gets `canceled`, the order is cancelled."""
    cancelled = services.orders.cancel(account_id, order.id, "Customer changed their mind.")
    assert ([call.body["status"] for call in store.calls], cancelled.status) == (["canceled"], "cancelled")


def test_a_rejected_cancellation_keeps_the_order_pending(
    services: Services, store: FakeStore, account_id: int, order: Order
) -> None:
    """The store refuses the cancellation: the order stays pending and is not cancelled."""
    store.reject("Already paid out.")
    with pytest.raises(ValidationFailed, match="Already paid out"):
        services.orders.cancel(account_id, order.id)
    assert services.orders.get(account_id, order.id).cancelled_at is None
