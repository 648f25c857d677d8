"""Product catalogues of the knowledge base (SPEC 4): creating one from JSON products and CSV uploads,
appending products, removing one, and the limits and errors of those requests."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from http_support import Api, Tenant

from engage_core.commerce.products import Product
from engage_core.knowledge.service import CatalogResult
from engage_core.testing import InMemoryUnitOfWorkFactory
from engage_http.areas import OPERATIONS
from engage_http.openapi import build_document
from engage_http.routing import API_PREFIX

CATALOG = "/knowledge-base/product-catalog"
CSV = "product_name,sku,price,stock,category\nMug,MUG-1,7.50,3,Kitchen\nTeapot,POT-1,24.99,,Kitchen\n"
DOCUMENT = build_document(OPERATIONS, prefix=API_PREFIX)


def csv_upload(content: str | bytes, name: str = "products.csv") -> dict[str, Any]:
    return {"csv_file": (name, content if isinstance(content, bytes) else content.encode(), "text/csv")}


def product_names(api: Api) -> list[str]:
    return [p["name"] for p in api.get("/products", params={"per_page": 100}).json()["data"]]


# -- creating a catalogue from JSON ------------------------------------------------------------------


def test_creating_a_catalogue_answers_201_with_the_entry_and_its_products(api: Api) -> None:
    """The response holds `knowledge_base`, `products_created` and the created products."""
    response = api.post(CATALOG, json={"title": "Coffee", "products": [{"product_name": "Beans", "price": 19.99}]})

    body = response.json()
    assert response.status_code == 201
    assert body["message"] == "Product catalogue created."
    assert set(body["data"]) == {"knowledge_base", "products_created", "products"}
    assert body["data"]["products_created"] == 1


def test_the_entry_is_an_active_product_catalog(api: Api) -> None:
    """The new entry has the request's fields, type `product_catalog` and status `active` by default."""
    response = api.post(
        CATALOG,
        json={
            "title": "Coffee",
            "description": "What we sell",
            "business_description": "Quote prices in euros",
            "products": [{"product_name": "Beans"}],
        },
    )

    entry = response.json()["data"]["knowledge_base"]
    assert {k: v for k, v in entry.items() if k != "id"} == {
        "title": "Coffee",
        "type": "product_catalog",
        "description": "What we sell",
        "business_description": "Quote prices in euros",
        "status": "active",
        "embedding_updated_at": None,
        "created_at": "2026-01-01T12:00:00.000000Z",
        "updated_at": "2026-01-01T12:00:00.000000Z",
    }


def test_a_created_product_has_the_catalog_fields(api: Api) -> None:
    """A product of the response carries every create field plus id, media_files and purchase_url."""
    product = {
        "product_name": "Beans",
        "product_description": "Dark roast",
        "sku": "B-1",
        "price": 19.99,
        "currency": "usd",
        "category": "Coffee",
        "stock_quantity": 12,
        "image_url": "https://cdn.example.com/b.png",
        "is_available": True,
        "product_attributes": {"purchase_url": "https://shop.example.com/b", "roast": "dark"},
    }

    data = api.post(CATALOG, json={"title": "Coffee", "products": [product]}).json()["data"]

    [created] = data["products"]
    assert created == {
        **product,
        "currency": "USD",
        "id": created["id"],
        "knowledge_base_id": data["knowledge_base"]["id"],
        "media_files": [],
        "purchase_url": "https://shop.example.com/b",
        "in_stock": True,
        "created_at": "2026-01-01T12:00:00.000000Z",
        "updated_at": "2026-01-01T12:00:00.000000Z",
    }


def test_a_price_keeps_its_exact_decimal(api: Api) -> None:
    """19.99 is stored and returned as 19.99, not as the binary fraction nearest to it."""
    response = api.post(CATALOG, json={"title": "C", "products": [{"product_name": "A", "price": 19.99}]})

    assert '"price":19.99,' in response.text


def test_a_price_is_rounded_half_up_to_cents(api: Api) -> None:
    """A third decimal place rounds half up: 0.125 becomes 0.13."""
    response = api.post(CATALOG, json={"title": "C", "products": [{"product_name": "A", "price": 0.125}]})

    assert response.json()["data"]["products"][0]["price"] == 0.13


def test_a_price_given_as_text_is_refused(api: Api) -> None:
    """A price is a JSON number: `"19.99"` is a 422 on that product's price."""
    response = api.post(CATALOG, json={"title": "C", "products": [{"product_name": "A", "price": "19.99"}]})

    assert response.status_code == 422
    assert response.json()["errors"] == {"products.0.price": ["The products.0.price must be a number."]}


def test_a_negative_price_is_refused(api: Api) -> None:
    """A price below 0 is a 422 naming the product."""
    response = api.post(CATALOG, json={"title": "C", "products": [{"product_name": "A", "price": -1}]})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["products.0.price"]


def test_the_status_may_be_inactive(api: Api) -> None:
    """`status` `inactive` is kept."""
    response = api.post(CATALOG, json={"title": "C", "status": "inactive", "products": [{"product_name": "A"}]})

    assert response.json()["data"]["knowledge_base"]["status"] == "inactive"


def test_an_unknown_status_is_refused(api: Api) -> None:
    """A status other than active or inactive is a 422."""
    response = api.post(CATALOG, json={"title": "C", "status": "draft", "products": [{"product_name": "A"}]})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["status"]


def test_a_title_is_required(api: Api) -> None:
    """Without a title the answer is a 422 naming it."""
    response = api.post(CATALOG, json={"products": [{"product_name": "A"}]})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["title"]


def test_products_or_a_csv_file_are_required(api: Api) -> None:
    """With neither `products` nor `csv_file` the 422 names both."""
    response = api.post(CATALOG, json={"title": "Empty"})

    assert response.status_code == 422
    assert set(response.json()["errors"]) == {"products", "csv_file"}


def test_every_bad_product_is_named(api: Api) -> None:
    """Each invalid field of each product is reported under `products.<n>.<field>`."""
    products = [{"product_name": " "}, {"product_name": "B", "stock_quantity": -1, "image_url": "ftp://x"}]

    response = api.post(CATALOG, json={"title": "C", "products": products})

    assert set(response.json()["errors"]) == {
        "products.0.product_name",
        "products.1.stock_quantity",
        "products.1.image_url",
    }


def test_a_purchase_url_that_is_not_a_url_is_refused(api: Api) -> None:
    """`product_attributes.purchase_url` must be an http or https URL."""
    product = {"product_name": "A", "product_attributes": {"purchase_url": "not a url"}}

    response = api.post(CATALOG, json={"title": "C", "products": [product]})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["products.0.product_attributes.purchase_url"]


def test_more_than_5000_products_are_refused(api: Api) -> None:
    """A request may add at most 5000 products."""
    products = [{"product_name": f"P{n}"} for n in range(5001)]

    response = api.post(CATALOG, json={"title": "C", "products": products})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["products"]


def test_a_rejected_request_stores_nothing(api: Api, uow: InMemoryUnitOfWorkFactory) -> None:
    """One bad product rejects the request: no entry, no product, no event is stored."""
    before = copy.deepcopy(uow.store.state)

    response = api.post(CATALOG, json={"title": "C", "products": [{"product_name": "Good"}, {"product_name": ""}]})

    assert response.status_code == 422
    assert uow.store.state == before


def test_creating_a_catalogue_emits_knowledge_base_created(
    api: Api, tenant: Tenant, uow: InMemoryUnitOfWorkFactory
) -> None:
    """The new entry is announced with `knowledge_base.created`."""
    entry = api.post(CATALOG, json={"title": "C", "products": [{"product_name": "A"}]}).json()["data"]

    [event] = uow.store.events(tenant.account_id)
    assert (event.name, event.payload["id"]) == ("knowledge_base.created", entry["knowledge_base"]["id"])


# -- CSV files ---------------------------------------------------------------------------------------


def test_a_csv_upload_creates_a_product_per_row(api: Api) -> None:
    """A multipart request with a `csv_file` creates the products of its rows, in order."""
    response = api.post(CATALOG, data={"title": "Kitchen"}, files=csv_upload(CSV))

    products = response.json()["data"]["products"]
    assert response.status_code == 201
    assert [(p["product_name"], p["sku"], p["price"], p["stock_quantity"]) for p in products] == [
        ("Mug", "MUG-1", 7.5, 3),
        ("Teapot", "POT-1", 24.99, None),
    ]


def test_a_form_takes_every_field_of_the_json_body(api: Api) -> None:
    """Form fields fill the entry as JSON fields do."""
    form = {"title": "Kitchen", "description": "Pots", "business_description": "Mention gifts", "status": "inactive"}

    entry = api.post(CATALOG, data=form, files=csv_upload(CSV)).json()["data"]["knowledge_base"]

    assert {k: entry[k] for k in form} == form


def test_json_products_come_before_csv_rows(api: Api) -> None:
    """A form with both a `products` part (a JSON array) and a CSV file creates the JSON products first."""
    form = {"title": "Both", "products": json.dumps([{"product_name": "Kettle", "price": 30}])}

    response = api.post(CATALOG, data=form, files=csv_upload(CSV))

    assert [p["product_name"] for p in response.json()["data"]["products"]] == ["Kettle", "Mug", "Teapot"]


def test_products_may_come_as_one_part_each(api: Api) -> None:
    """Repeated `products` parts, one JSON object each, are the items of the array."""
    parts = [
        ("title", (None, "Parts")),
        ("products", (None, '{"product_name": "A"}', "application/json")),
        ("products", (None, '{"product_name": "B"}', "application/json")),
    ]

    response = api.post(CATALOG, files=parts)

    assert [p["product_name"] for p in response.json()["data"]["products"]] == ["A", "B"]


def test_a_products_part_that_is_not_json_is_refused(api: Api) -> None:
    """A `products` part must hold JSON."""
    response = api.post(CATALOG, files=[("title", (None, "C")), ("products", (None, "[{"))])

    assert response.status_code == 422
    assert response.json()["errors"] == {"products": ["The products part must hold JSON."]}


def test_a_csv_file_may_be_sent_as_text_in_json(api: Api) -> None:
    """In a JSON body `csv_file` is the CSV text."""
    response = api.post(CATALOG, json={"title": "Kitchen", "csv_file": CSV})

    assert [p["product_name"] for p in response.json()["data"]["products"]] == ["Mug", "Teapot"]


def test_a_csv_with_a_byte_order_mark_is_read(api: Api) -> None:
    """The UTF-8 byte-order mark that spreadsheets write is skipped."""
    response = api.post(CATALOG, data={"title": "BOM"}, files=csv_upload("\ufeff" + CSV))

    assert response.json()["data"]["products_created"] == 2


def test_extra_csv_columns_become_attributes(api: Api) -> None:
    """A column that is no product field is kept in `product_attributes`; `purchase_url` also fills `purchase_url`."""
    content = "name,purchase_url,origin\nBeans,https://shop.example.com/b,Brazil\n"

    [product] = api.post(CATALOG, data={"title": "C"}, files=csv_upload(content)).json()["data"]["products"]

    assert product["product_attributes"] == {"purchase_url": "https://shop.example.com/b", "origin": "Brazil"}
    assert product["purchase_url"] == "https://shop.example.com/b"


def test_a_bad_csv_row_is_a_422_naming_row_and_column(api: Api) -> None:
    """Each bad cell is reported as `csv_file.row_<n>.<column>`, rows numbered as a spreadsheet shows them."""
    content = "product_name,price,stock\nMug,7.50,3\nTeapot,cheap,1\nCup,1.00,-2\n"

    response = api.post(CATALOG, data={"title": "C"}, files=csv_upload(content))

    body = response.json()
    assert response.status_code == 422
    assert body["errors"] == {
        "csv_file.row_3.price": ["The price must be a number."],
        "csv_file.row_4.stock": ["The stock_quantity must be at least 0."],
    }
    assert body["message"] == "The CSV file has errors, first in row 3, column price: The price must be a number."


def test_a_rejected_csv_upload_stores_nothing(api: Api, uow: InMemoryUnitOfWorkFactory) -> None:
    """One bad row rejects the whole file: no entry, no product and no event is stored."""
    before = copy.deepcopy(uow.store.state)

    response = api.post(CATALOG, data={"title": "C"}, files=csv_upload("product_name,price\nMug,1\nCup,x\n"))

    assert response.status_code == 422
    assert uow.store.state == before


def test_a_csv_without_a_name_column_is_refused(api: Api) -> None:
    """The header must name a `product_name` (or `name`) column."""
    response = api.post(CATALOG, data={"title": "C"}, files=csv_upload("sku,price\nA,1\n"))

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["csv_file.header"]


def test_a_csv_that_is_not_utf8_is_refused(api: Api) -> None:
    """The file must be UTF-8 text."""
    response = api.post(CATALOG, data={"title": "C"}, files=csv_upload("product_name\nCaf\xe9\n".encode("latin-1")))

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["csv_file"]


def test_a_body_above_1_mib_is_accepted_for_a_catalogue(api: Api) -> None:
    """Catalogue requests may be larger than the 1 MiB of other requests."""
    rows = "".join(f"P{n},{'x' * 400}\n" for n in range(4000))

    response = api.post(CATALOG, data={"title": "Big"}, files=csv_upload("product_name,description\n" + rows))

    assert response.status_code == 201
    assert response.json()["data"]["products_created"] == 4000


def test_a_body_above_5_mib_is_refused_with_413(api: Api, uow: InMemoryUnitOfWorkFactory) -> None:
    """A catalogue request over 5 MiB is a 413, and nothing is stored."""
    before = copy.deepcopy(uow.store.state)

    response = api.post(CATALOG, data={"title": "Huge"}, files=csv_upload("product_name\n" + "x" * (5 * 1024 * 1024)))

    assert response.status_code == 413
    assert uow.store.state == before


def test_a_malformed_form_is_refused(api: Api) -> None:
    """A multipart body that does not parse is a 422 on the body."""
    response = api.post(
        CATALOG,
        content=b"--b\r\nContent-Disposition: form-data\r\n\r\nx",
        headers={"Content-Type": "multipart/form-data; boundary=b"},
    )

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["body"]


def test_a_form_without_a_boundary_is_refused(api: Api) -> None:
    """`multipart/form-data` without a boundary is a 422 on the body."""
    response = api.post(CATALOG, content=b"title=x", headers={"Content-Type": "multipart/form-data"})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["body"]


def test_a_text_field_given_twice_is_refused(api: Api) -> None:
    """A field other than an array may appear once in a form."""
    response = api.post(CATALOG, files=[("title", (None, "A")), ("title", (None, "B")), *csv_upload(CSV).items()])

    assert response.status_code == 422
    assert response.json()["errors"] == {"title": ["The title may be given only once."]}


def test_a_bad_key_with_a_bad_form_is_401(anonymous: Api) -> None:
    """Authentication comes before the form is read."""
    response = anonymous.post(CATALOG, content=b"junk", headers={"Content-Type": "multipart/form-data; boundary=b"})

    assert response.status_code == 401


# -- appending products ------------------------------------------------------------------------------


def test_products_are_appended_to_a_catalogue(
    api: Api, tenant: Tenant, make_catalog: Callable[..., CatalogResult]
) -> None:
    """`POST /knowledge-base/{id}/products` adds products beside the existing ones."""
    catalog = make_catalog(tenant, products=[{"product_name": "Old"}])

    response = api.post(
        f"/knowledge-base/{catalog.knowledge_base.id}/products", json={"products": [{"product_name": "New"}]}
    )

    body = response.json()
    assert response.status_code == 201
    assert (body["data"]["products_created"], body["data"]["knowledge_base"]["id"]) == (1, catalog.knowledge_base.id)
    assert product_names(api) == ["Old", "New"]


def test_a_csv_file_is_appended_to_a_catalogue(
    api: Api, tenant: Tenant, make_catalog: Callable[..., CatalogResult]
) -> None:
    """A CSV upload appends a product per row."""
    catalog = make_catalog(tenant, products=[{"product_name": "Old"}])

    response = api.post(f"/knowledge-base/{catalog.knowledge_base.id}/products", files=csv_upload(CSV))

    assert response.status_code == 201
    assert product_names(api) == ["Old", "Mug", "Teapot"]


def test_a_rejected_append_adds_nothing(
    api: Api, tenant: Tenant, make_catalog: Callable[..., CatalogResult], uow: InMemoryUnitOfWorkFactory
) -> None:
    """A bad CSV row rejects the append, and the catalogue is as it was."""
    catalog = make_catalog(tenant, products=[{"product_name": "Old"}])
    before = copy.deepcopy(uow.store.state)

    response = api.post(
        f"/knowledge-base/{catalog.knowledge_base.id}/products", files=csv_upload("product_name,price\nA,1\nB,-1\n")
    )

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["csv_file.row_3.price"]
    assert uow.store.state == before


def test_an_append_needs_products_or_a_csv_file(
    api: Api, tenant: Tenant, make_catalog: Callable[..., CatalogResult]
) -> None:
    """An empty append is a 422 naming both fields."""
    catalog = make_catalog(tenant, products=[{"product_name": "Old"}])

    response = api.post(f"/knowledge-base/{catalog.knowledge_base.id}/products", json={})

    assert response.status_code == 422
    assert set(response.json()["errors"]) == {"products", "csv_file"}


def test_appending_to_an_unknown_catalogue_is_404(api: Api) -> None:
    """An id that names no entry answers 404."""
    response = api.post("/knowledge-base/999/products", json={"products": [{"product_name": "A"}]})

    assert response.status_code == 404


# -- removing a product ------------------------------------------------------------------------------


def test_removing_a_product_answers_204(api: Api, tenant: Tenant, make_catalog: Callable[..., CatalogResult]) -> None:
    """`DELETE /knowledge-base/{id}/products/{product_id}` removes the product and answers 204 with no body."""
    catalog = make_catalog(tenant, products=[{"product_name": "Keep"}, {"product_name": "Drop"}])
    drop = catalog.products[1]

    response = api.delete(f"/knowledge-base/{catalog.knowledge_base.id}/products/{drop.id}")

    assert (response.status_code, response.content) == (204, b"")
    assert product_names(api) == ["Keep"]


def test_removing_a_product_of_another_catalogue_is_404(
    api: Api, tenant: Tenant, make_catalog: Callable[..., CatalogResult], make_product: Callable[..., Product]
) -> None:
    """A product is removed only through its own catalogue."""
    catalog = make_catalog(tenant, products=[{"product_name": "Mine"}])
    elsewhere = make_product(tenant)

    response = api.delete(f"/knowledge-base/{catalog.knowledge_base.id}/products/{elsewhere.id}")

    assert response.status_code == 404
    assert len(product_names(api)) == 2


def test_removing_an_unknown_product_is_404(
    api: Api, tenant: Tenant, make_catalog: Callable[..., CatalogResult]
) -> None:
    """A product id that does not exist answers 404."""
    catalog = make_catalog(tenant, products=[{"product_name": "Mine"}])

    response = api.delete(f"/knowledge-base/{catalog.knowledge_base.id}/products/999")

    assert response.status_code == 404


# -- the document ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/knowledge-base/product-catalog", "/knowledge-base/{id}/products"])
def test_the_document_offers_json_and_multipart_bodies(path: str) -> None:
    """Both catalogue writes document a JSON body and its multipart form, with the CSV and JSON parts' types."""
    content = DOCUMENT["paths"][API_PREFIX + path]["post"]["requestBody"]["content"]

    assert content["application/json"]["schema"] == content["multipart/form-data"]["schema"]
    assert content["multipart/form-data"]["encoding"] == {
        "products": {"contentType": "application/json"},
        "csv_file": {"contentType": "text/csv"},
    }


def test_the_document_states_the_5_mib_limit() -> None:
    """The 413 of a catalogue write names its own limit."""
    responses = DOCUMENT["paths"][API_PREFIX + CATALOG]["post"]["responses"]

    assert responses["413"]["description"] == "The request body is larger than 5 MiB."


def test_attributes_json_cannot_carry_back_are_refused(api: Api) -> None:
    """A number too large for a double (`1e999`) inside `product_attributes` is a 422, not stored as infinity."""
    body = b'{"title": "C", "products": [{"product_name": "A", "product_attributes": {"weight": 1e999}}]}'

    response = api.post(CATALOG, content=body, headers={"Content-Type": "application/json"})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == ["products.0.product_attributes"]
