"""`POST /api/v1/store/orders`: a connected store pushes its orders (SPEC 2: `created_by`
`store_platform`); status changes of such orders go to the store first (SPEC 3, SPEC 7: 422).

The route runs over the in-memory fakes; the last tests build the real app (`bootstrap.build_app`)
over SQLite with a local store connector, to check the wiring of `ENGAGE_STORE_*`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fake_store import TOKEN, FakeStore
from http_support import Api, Tenant
from starlette.testclient import TestClient

from engage_connectors.store_platform import HttpStorePlatform, NoStorePlatform
from engage_core.commerce.products import Product
from engage_core.contacts.model import Contact
from engage_core.services import Services
from engage_core.settings import Settings
from engage_core.testing import (
    AllowAllTargets,
    FakeCipher,
    FakeClock,
    FakeStorePlatform,
    InMemoryUnitOfWorkFactory,
)
from engage_http import create_app
from engage_http.bootstrap import StoreMisconfigured, build_app, store_platform
from engage_http.commerce.store_routes import ALREADY_IMPORTED

PATH = "/store/orders"


@pytest.fixture
def store_platform_fake() -> FakeStorePlatform:
    return FakeStorePlatform()


@pytest.fixture
def services(uow: InMemoryUnitOfWorkFactory, clock: FakeClock, store_platform_fake: FakeStorePlatform) -> Services:
    """The conftest's services, with a connected (fake) store."""
    return Services.build(uow, clock, cipher=FakeCipher(), guard=AllowAllTargets(), store=store_platform_fake)


def store_order(reference: str = "wc-1001", **fields: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "external_reference": reference,
        "customer_name": "Ada Lovelace",
        "items": [{"product_name": "Green tea", "product_sku": "TEA-1", "quantity": 3, "unit_price": 19.99}],
    }
    body.update(fields)
    return body


def order_events(uow: InMemoryUnitOfWorkFactory, account_id: int) -> list[str]:
    return [event.name for event in uow.store.events(account_id) if event.name.startswith("order.")]


# -- importing ------------------------------------------------------------------------------------


def test_a_new_reference_is_created_with_201(api: Api) -> None:
    """A first push answers 201 with the stored order and `is_duplicate` false."""
    response = api.post(PATH, json=store_order())
    assert response.status_code == 201
    assert (response.json()["message"], response.json()["data"]["is_duplicate"]) == ("Order imported.", False)


def test_the_order_is_recorded_as_the_store_sent_it(api: Api) -> None:
    """created_by store_platform, the store's reference, customer, currency and exact prices."""
    data = api.post(PATH, json=store_order(currency="eur")).json()["data"]
    assert {k: data[k] for k in ("created_by", "external_reference", "customer_name", "currency", "total")} == {
        "created_by": "store_platform",
        "external_reference": "wc-1001",
        "customer_name": "Ada Lovelace",
        "currency": "EUR",
        "total": 59.97,
    }


def test_the_lines_keep_the_stores_names_skus_and_prices(api: Api) -> None:
    """Each item is stored by name and SKU at the store's unit price; without product_id it links nothing."""
    [item] = api.post(PATH, json=store_order()).json()["data"]["items"]
    assert {k: item[k] for k in ("product_id", "product_name", "product_sku", "quantity", "unit_price")} == {
        "product_id": None,
        "product_name": "Green tea",
        "product_sku": "TEA-1",
        "quantity": 3,
        "unit_price": 19.99,
    }


def test_the_currency_defaults_to_usd_and_the_status_to_pending(api: Api) -> None:
    """Fields left out take their defaults."""
    data = api.post(PATH, json=store_order()).json()["data"]
    assert (data["currency"], data["status"]) == ("USD", "pending")


def test_the_stores_status_is_kept(api: Api) -> None:
    """An order pushed as shipped at the store is stored shipped."""
    assert api.post(PATH, json=store_order(status="shipped")).json()["data"]["status"] == "shipped"


def test_a_line_may_link_a_catalogue_product(
    api: Api, tenant: Tenant, make_product: Callable[..., Product], services: Services
) -> None:
    """A `product_id` of the workspace's catalogue links the line; the product's stock is not touched."""
    product = make_product(tenant, stock_quantity=5)
    line = {"product_name": "Tea", "quantity": 2, "unit_price": 4.5, "product_id": product.id}
    data = api.post(PATH, json=store_order(items=[line])).json()["data"]
    assert data["items"][0]["product_id"] == product.id
    assert services.products.get(tenant.account_id, product.id).stock_quantity == 5


def test_a_contact_fills_the_customers_phone_and_email(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact]
) -> None:
    """With a contact_id and no phone or email, the contact's are used."""
    contact = make_contact(tenant, phone="+14155552671", email="ada@example.com")
    data = api.post(PATH, json=store_order(contact_id=contact.id)).json()["data"]
    assert (data["contact_id"], data["customer_phone"], data["customer_email"]) == (
        contact.id,
        "+14155552671",
        "ada@example.com",
    )


def test_importing_emits_order_created(api: Api, tenant: Tenant, uow: InMemoryUnitOfWorkFactory) -> None:
    """A new store order is an ordinary new order for webhooks: one order.created."""
    api.post(PATH, json=store_order())
    assert order_events(uow, tenant.account_id) == ["order.created"]


# -- idempotency ----------------------------------------------------------------------------------


def test_a_known_reference_returns_the_existing_order_with_200(api: Api) -> None:
    """A second push of the reference answers 200 with the same order and `is_duplicate` true."""
    first = api.post(PATH, json=store_order()).json()["data"]
    response = api.post(PATH, json=store_order())
    assert response.status_code == 200
    body = response.json()
    assert (body["data"]["id"], body["data"]["is_duplicate"], body["message"]) == (first["id"], True, ALREADY_IMPORTED)


def test_a_known_reference_stores_no_second_order(api: Api) -> None:
    """However often a store retries, the workspace holds one order per reference."""
    for _ in range(3):
        api.post(PATH, json=store_order())
    assert api.get("/orders").json()["meta"]["total"] == 1


def test_a_known_reference_changes_nothing_even_with_other_content(api: Api) -> None:
    """A later push with different fields returns the stored order as it was, unchanged."""
    first = api.post(PATH, json=store_order()).json()["data"]
    again = api.post(PATH, json=store_order(customer_name="Someone Else", status="delivered")).json()["data"]
    assert again == {**first, "is_duplicate": True}


def test_a_known_reference_emits_no_event(api: Api, tenant: Tenant, uow: InMemoryUnitOfWorkFactory) -> None:
    """Only the first push emits order.created."""
    api.post(PATH, json=store_order())
    api.post(PATH, json=store_order())
    assert order_events(uow, tenant.account_id) == ["order.created"]


def test_the_reference_is_compared_trimmed(api: Api) -> None:
    """` wc-1001 ` and `wc-1001` are the same store order."""
    first = api.post(PATH, json=store_order("wc-1001")).json()["data"]
    response = api.post(PATH, json=store_order(" wc-1001 "))
    assert (response.status_code, response.json()["data"]["id"]) == (200, first["id"])


def test_the_same_reference_in_two_workspaces_is_two_orders(
    api: Api, make_tenant: Callable[..., Tenant], client_for: Callable[[Tenant], Api]
) -> None:
    """References are unique per workspace: another workspace's push of it creates its own order."""
    api.post(PATH, json=store_order())
    response = client_for(make_tenant("Other")).post(PATH, json=store_order())
    assert (response.status_code, response.json()["data"]["is_duplicate"]) == (201, False)


# -- refusals -------------------------------------------------------------------------------------


def test_the_required_fields_are_named(api: Api) -> None:
    """Without a reference, a customer name and items, each is named in the 422."""
    response = api.post(PATH, json={})
    assert response.status_code == 422
    assert set(response.json()["errors"]) == {"external_reference", "customer_name", "items"}


def test_an_order_needs_at_least_one_item(api: Api) -> None:
    """An empty items array is a 422 on items."""
    response = api.post(PATH, json=store_order(items=[]))
    assert (response.status_code, list(response.json()["errors"])) == (422, ["items"])


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ({"product_name": "Tea", "quantity": 1, "unit_price": -1}, "items.0.unit_price"),
        ({"product_name": "Tea", "quantity": 1, "unit_price": "4.50"}, "items.0.unit_price"),
        ({"product_name": "Tea", "quantity": 0, "unit_price": 4.5}, "items.0.quantity"),
        ({"product_name": " ", "quantity": 1, "unit_price": 4.5}, "items.0.product_name"),
        ({"product_name": "Tea", "quantity": 1}, "items.0.unit_price"),
    ],
)
def test_a_bad_line_is_a_422_naming_its_field(api: Api, line: dict[str, Any], field: str) -> None:
    """Prices are non-negative JSON numbers, quantities positive, names not blank."""
    response = api.post(PATH, json=store_order(items=[line]))
    assert (response.status_code, list(response.json()["errors"])) == (422, [field])


def test_an_unknown_product_is_a_422_on_the_line(api: Api) -> None:
    """A product_id the catalogue does not have is refused on that line."""
    line = {"product_name": "Tea", "quantity": 1, "unit_price": 4.5, "product_id": 999}
    response = api.post(PATH, json=store_order(items=[line]))
    assert (response.status_code, response.json()["errors"]) == (
        422,
        {"items.0.product_id": ["The selected product does not exist."]},
    )


def test_another_workspaces_contact_is_a_422_and_nothing_is_stored(
    api: Api, make_tenant: Callable[..., Tenant], make_contact: Callable[..., Contact]
) -> None:
    """Naming a contact of another account is refused like an unknown one; no order is stored."""
    theirs = make_contact(make_tenant("Other"))
    response = api.post(PATH, json=store_order(contact_id=theirs.id))
    assert (response.status_code, list(response.json()["errors"])) == (422, ["contact_id"])
    assert api.get("/orders").json()["meta"]["total"] == 0


def test_an_unknown_status_is_a_422(api: Api) -> None:
    """The status must be one of the order statuses."""
    response = api.post(PATH, json=store_order(status="refunded"))
    assert (response.status_code, list(response.json()["errors"])) == (422, ["status"])


def test_the_route_needs_the_workspace_key(anonymous: Api) -> None:
    """Without an API key the push is a 401."""
    assert anonymous.post(PATH, json=store_order()).status_code == 401


# -- status changes of imported orders -------------------------------------------------------------


def test_a_status_change_the_store_refuses_is_a_422_with_its_message(
    api: Api, store_platform_fake: FakeStorePlatform
) -> None:
    """PUT /orders/{id} on an imported order: the store's refusal is the 422 message."""
    order_id = api.post(PATH, json=store_order()).json()["data"]["id"]
    store_platform_fake.reject("The order is packed already.")
    response = api.put(f"/orders/{order_id}", json={"status": "confirmed"})
    assert (response.status_code, response.json()["errors"]) == (422, {"status": ["The order is packed already."]})


def test_a_refused_status_change_leaves_the_imported_order_unchanged(
    api: Api, store_platform_fake: FakeStorePlatform
) -> None:
    """After the store's refusal the order reads exactly as before."""
    created = api.post(PATH, json=store_order()).json()["data"]
    store_platform_fake.reject()
    api.put(f"/orders/{created['id']}", json={"status": "confirmed"})
    shown = api.get(f"/orders/{created['id']}").json()["data"]
    assert shown == {k: v for k, v in created.items() if k not in ("external_reference", "is_duplicate")}


def test_without_a_store_connector_a_status_change_is_a_422_saying_so(
    tenant: Tenant, uow: InMemoryUnitOfWorkFactory, clock: FakeClock
) -> None:
    """Wired as bootstrap wires it without ENGAGE_STORE_URL: a 422 naming the setting, not a 500."""
    services = Services.build(uow, clock, cipher=FakeCipher(), guard=AllowAllTargets(), store=NoStorePlatform())
    api = Api(TestClient(create_app(services)), tenant.headers)
    order_id = api.post(PATH, json=store_order()).json()["data"]["id"]
    response = api.post(f"/orders/{order_id}/cancel")
    assert response.status_code == 422
    assert "ENGAGE_STORE_URL" in response.json()["errors"]["status"][0]


# -- the document ---------------------------------------------------------------------------------


def test_the_document_describes_both_success_statuses(client: TestClient) -> None:
    """The OpenAPI operation documents 201 (imported) and 200 (already imported)."""
    operation = client.get("/api/v1/openapi.json").json()["paths"]["/api/v1/store/orders"]["post"]
    assert {"200", "201"} <= set(operation["responses"])


# -- wiring (bootstrap) ---------------------------------------------------------------------------


def test_without_a_store_url_the_stand_in_is_wired() -> None:
    """No ENGAGE_STORE_URL: status changes of store orders meet NoStorePlatform."""
    assert isinstance(store_platform(Settings()), NoStorePlatform)


def test_with_a_store_url_and_token_the_http_connector_is_wired() -> None:
    """ENGAGE_STORE_URL and ENGAGE_STORE_TOKEN give an HttpStorePlatform for that URL."""
    platform = store_platform(Settings(store_url="https://bridge.example.com/engage", store_token="t"))
    try:
        assert isinstance(platform, HttpStorePlatform)
        assert platform.status_url("1") == "https://bridge.example.com/engage/orders/1/status"
    finally:
        assert isinstance(platform, HttpStorePlatform)
        platform.close()


@pytest.mark.parametrize(
    ("settings", "named"),
    [
        (Settings(store_url="https://bridge.example.com"), "ENGAGE_STORE_TOKEN"),
        (Settings(store_url="bridge.example.com", store_token="t"), "ENGAGE_STORE_URL"),
    ],
)
def test_an_incomplete_store_configuration_is_refused(settings: Settings, named: str) -> None:
    """A URL without a token, or a URL that is not http(s), stops the composition with a clear error."""
    with pytest.raises(StoreMisconfigured, match=named):
        store_platform(settings)


def test_build_app_refuses_a_store_url_without_a_token_before_touching_the_database(tmp_path: Path) -> None:
    """The misconfiguration is found before the database is created or migrated."""
    path = tmp_path / "engage.db"
    with pytest.raises(StoreMisconfigured):
        build_app(Settings(database_url=f"sqlite:///{path}", store_url="https://bridge.example.com"))
    assert not path.exists()


@pytest.fixture
def fake_store() -> Iterator[FakeStore]:
    with FakeStore() as store:
        yield store


def test_the_built_app_pushes_status_changes_to_the_configured_store(tmp_path: Path, fake_store: FakeStore) -> None:
    """Over SQLite, with ENGAGE_STORE_URL and ENGAGE_STORE_TOKEN: a pushed order's cancel reaches the store."""
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'engage.db'}",
        run_worker=False,
        store_url=fake_store.url,
        store_token=TOKEN,
    )
    app = build_app(settings)
    key = app.state.services.accounts.create("Acme").api_key
    with TestClient(app) as client:
        api = Api(client, {"X-Api-Key": key})
        order_id = api.post(PATH, json=store_order()).json()["data"]["id"]
        response = api.post(f"/orders/{order_id}/cancel")
    assert (response.status_code, response.json()["data"]["status"]) == (200, "cancelled")
    assert [(call.reference, call.body["status"]) for call in fake_store.calls] == [("wc-1001", "canceled")]
