"""Knowledge base (SPEC 4): product catalogues, the products they add, and removing a product.

A catalogue request is JSON or `multipart/form-data` (a CSV upload), at most `CATALOG_BODY_MAX`
bytes. It is all or nothing: one bad product or CSV row rejects it, and nothing of it is stored.
"""

from __future__ import annotations

from engage_core.commerce.products import MAX_PRODUCTS_PER_REQUEST
from engage_core.knowledge.service import CatalogInput, ProductsInput
from engage_http.commerce.product_schemas import linked_media
from engage_http.knowledge.schemas import CatalogCreate, CatalogProducts, ProductsAdd, check_products
from engage_http.operations import Call, Operation, Shape

TAG = "Knowledge base"

RULES = frozenset({422})
"""Declared in `errors`: a 422 may also answer a request the document calls valid, for a rule no schema
can state (the CSV rows, products and CSV rows together, the entry's type)."""

CATALOG_BODY_MAX = 5 * 1024 * 1024
"""The largest catalogue request (JSON, or a form with its CSV file): 5 MiB, about 50,000 CSV rows of
a typical width, far beyond the rows one request may add."""

_LIMITS = (
    f"At most {MAX_PRODUCTS_PER_REQUEST} products (JSON products and CSV rows together) and a 5 MiB body per "
    "request. Every product and CSV row is checked first; an error anywhere is a 422 naming each bad field "
    "(`products.2.price`, `csv_file.row_4.price`) and nothing is stored."
)


def create_catalog(call: Call[CatalogInput, None]) -> CatalogProducts:
    check_products(call.body.products)
    created = call.services.knowledge_base.create_catalog(call.account_id, call.body)
    return CatalogProducts.from_domain(created, linked_media(call.services, call.account_id, created.products))


def add_products(call: Call[ProductsInput, None]) -> CatalogProducts:
    check_products(call.body.products)
    added = call.services.knowledge_base.add_products(call.account_id, call.path["id"], call.body)
    return CatalogProducts.from_domain(added, linked_media(call.services, call.account_id, added.products))


def remove_product(call: Call[None, None]) -> None:
    call.services.knowledge_base.delete_product(call.account_id, call.path["id"], call.path["product_id"])


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "POST",
        "/knowledge-base/product-catalog",
        create_catalog,
        "Create a product catalogue",
        TAG,
        CatalogProducts,
        status=201,
        message="Product catalogue created.",
        body=CatalogCreate,
        errors=RULES,
        multipart=True,
        body_limit=CATALOG_BODY_MAX,
        description="JSON, or `multipart/form-data` with a `csv_file` upload. " + _LIMITS,
    ),
    Operation(
        "POST",
        "/knowledge-base/{id:id}/products",
        add_products,
        "Add products to a catalogue",
        TAG,
        CatalogProducts,
        status=201,
        message="Products added.",
        body=ProductsAdd,
        errors=RULES,
        multipart=True,
        body_limit=CATALOG_BODY_MAX,
        description="Appends to a `product_catalog` entry (another type of entry is a 422). " + _LIMITS,
    ),
    Operation(
        "DELETE",
        "/knowledge-base/{id:id}/products/{product_id:id}",
        remove_product,
        "Remove a product from its catalogue",
        TAG,
        shape=Shape.NOTHING,
        status=204,
        description="Orders that hold the product keep their items as they were placed.",
    ),
)
