"""Products (SPEC 4, Orders and products): the orderable products of every catalogue.

Products are created and deleted through their catalogue (`routes/knowledge_base.py`).
"""

from __future__ import annotations

from engage_core.commerce.products import PRODUCTS, ProductFilter
from engage_core.kernel.pagination import Page
from engage_http.commerce.product_schemas import Product, ProductFilters, linked_media
from engage_http.operations import Call, Operation, Shape

TAG = "Products"


def index(call: Call[None, ProductFilter]) -> Page[Product]:
    assert call.page is not None
    found = call.services.products.find(call.account_id, call.query, call.page)
    media = linked_media(call.services, call.account_id, found.items)
    return found.map(lambda product: Product.from_domain(product, media))


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "GET",
        "/products",
        index,
        "List products",
        TAG,
        Product,
        Shape.PAGE,
        query=ProductFilters,
        page=PRODUCTS,
        description="In catalogue order. `search` matches the name, SKU or category; `category` is an exact "
        "match in any case.",
    ),
)
