"""Products, catalogue CSV files, order items and orders (SPEC 2 Product, Order; SPEC 4 Knowledge
base, Orders)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from decimal import Decimal

from hypothesis import strategies as st

from engage_core.commerce.order_service import OrderInput
from engage_core.commerce.orders import ADDRESS_MAX, ITEMS_MAX, NOTES_MAX, QUANTITY_MAX, ItemRequest
from engage_core.commerce.orders import NAME_MAX as CUSTOMER_NAME_MAX
from engage_core.commerce.products import CATEGORY_MAX, NAME_MAX, SKU_MAX, STOCK_MAX, ProductInput
from engage_core.knowledge.service import CatalogInput

from ._text import blanks, broken, field, optional_texts, texts, too_long
from .contacts import bad_emails, bad_phones, emails, phones

prices = st.decimals(min_value=0, max_value=Decimal("99999.99"), places=2)
"""Unit prices: 0 to 99,999.99, two places."""
currencies = st.sampled_from(["USD", "EUR", "SAR", "GBP", "usd"])
"""ISO 4217 codes (lower case is accepted and upper-cased)."""
image_urls = st.integers(1, 10_000).map(lambda n: f"https://cdn.example.com/products/{n}.png")


def product_inputs(*, invalid: bool = False, tracked: bool | None = None) -> st.SearchStrategy[ProductInput]:
    """Products of a catalogue (`POST /knowledge-base/product-catalog`): priced, in one currency
    (USD) unless `currency` is drawn, with tracked (`tracked=True`), untracked (`False`) or either
    stock. `invalid=True` breaks one rule (blank or long name or SKU, a negative, non-numeric or
    boolean price, a bad currency, negative or fractional stock, a non-http image URL)."""
    stock = (
        st.integers(0, 1000)
        if tracked
        else st.none()
        if tracked is False
        else st.none() | st.integers(0, 1000) | st.integers(0, 1000).map(str)
    )
    valid = st.builds(
        ProductInput,
        product_name=texts(NAME_MAX),
        product_description=optional_texts(1000),
        sku=optional_texts(SKU_MAX),
        price=prices | prices.map(str),
        currency=st.none() | st.just("USD"),
        category=optional_texts(CATEGORY_MAX),
        stock_quantity=stock,
        image_url=st.none() | image_urls,
        is_available=st.booleans(),
        product_attributes=st.none() | st.dictionaries(st.sampled_from(["color", "size"]), texts(20), max_size=2),
    )
    if not invalid:
        return valid
    return broken(
        valid,
        field("product_name", blanks() | too_long(NAME_MAX)),
        field("sku", too_long(SKU_MAX)),
        field("price", st.sampled_from([-1, "-0.01", "abc", "NaN", True, "1e99"])),
        field("currency", st.sampled_from(["US", "dollars", "12$"])),
        field("stock_quantity", st.sampled_from([-1, "1.5", "ten", STOCK_MAX + 1, True])),
        field("image_url", st.sampled_from(["ftp://cdn.example.com/a.png", "not a url", "/a.png"])),
        field("product_attributes", st.just({"purchase_url": "javascript:alert(1)"})),
    )


def catalog_inputs(*, invalid: bool = False) -> st.SearchStrategy[CatalogInput]:
    """`POST /knowledge-base/product-catalog` bodies with one to five JSON products; `invalid=True`
    draws a blank title, an unknown status or an invalid product among valid ones."""
    valid = st.builds(
        CatalogInput,
        title=texts(255),
        products=st.lists(product_inputs(), min_size=1, max_size=5),
        status=st.sampled_from(["active", "inactive"]),
    )
    if not invalid:
        return valid
    return broken(
        valid,
        field("title", blanks() | too_long(255)),
        field("status", st.sampled_from(["archived", ""])),
        field("products", st.lists(product_inputs(invalid=True), min_size=1, max_size=2)),
    )


CSV_HEADER = ("product_name", "description", "sku", "price", "currency", "category", "stock", "image_url")


def _csv(rows: Sequence[Sequence[str]], header: Sequence[str] = CSV_HEADER) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


_csv_row = st.tuples(
    texts(NAME_MAX),
    st.just("") | texts(200),
    st.just("") | texts(SKU_MAX),
    prices.map(str),
    st.sampled_from(["", "USD"]),
    st.just("") | texts(CATEGORY_MAX),
    st.just("") | st.integers(0, 1000).map(str),
    st.just("") | image_urls,
)

_bad_cells = {
    0: blanks(),
    3: st.sampled_from(["abc", "-1", "1,5"]),
    4: st.sampled_from(["US", "dollars"]),
    6: st.sampled_from(["-1", "1.5", "ten"]),
    7: st.sampled_from(["ftp://x.example.com/a.png", "not a url"]),
}


@st.composite
def _broken_csv(draw: st.DrawFn) -> str:
    rows = [list(row) for row in draw(st.lists(_csv_row, min_size=1, max_size=5))]
    kind = draw(st.sampled_from(["cell", "no rows", "no name column", "empty"]))
    if kind == "no rows":
        return _csv([])
    if kind == "no name column":
        return _csv([row[1:] for row in rows], CSV_HEADER[1:])
    if kind == "empty":
        return draw(st.sampled_from(["", "\n\n"]))
    column = draw(st.sampled_from(sorted(_bad_cells)))
    rows[draw(st.integers(0, len(rows) - 1))][column] = draw(_bad_cells[column])
    return _csv(rows)


def catalog_csv_files(*, invalid: bool = False) -> st.SearchStrategy[str]:
    """Product catalogue CSV files (the `csv_file` of a catalogue), header row first, one to five
    product rows. `invalid=True` draws a file the import refuses whole: a bad cell (blank name,
    non-numeric price, bad currency, bad stock, bad image URL), no product rows, no name column, or
    nothing at all."""
    if invalid:
        return _broken_csv()
    return st.lists(_csv_row, min_size=1, max_size=5).map(_csv)


def _ids(product_ids: Sequence[int] | st.SearchStrategy[int]) -> st.SearchStrategy[int]:
    return product_ids if isinstance(product_ids, st.SearchStrategy) else st.sampled_from(list(product_ids))


def order_items(
    product_ids: Sequence[int] | st.SearchStrategy[int], *, invalid: bool = False, max_quantity: int = 3
) -> st.SearchStrategy[list[ItemRequest]]:
    """The `items` of an order over existing products (`product_ids`: ids, or a strategy of them),
    each product once, quantities 1 to `max_quantity` (keep it within the stock you gave them).
    `invalid=True` draws no items, a zero, negative or too large quantity, a product listed twice,
    or a product id below 1."""
    ids = _ids(product_ids)
    valid = st.lists(
        st.builds(ItemRequest, ids, st.integers(1, max_quantity)),
        min_size=1,
        max_size=5,
        unique_by=lambda item: item.product_id,
    )
    if not invalid:
        return valid

    def twice(items: list[ItemRequest]) -> list[ItemRequest]:
        return [*items, ItemRequest(items[0].product_id, 1)]

    def quantity(pair: tuple[list[ItemRequest], int]) -> list[ItemRequest]:
        items, bad = pair
        return [ItemRequest(items[0].product_id, bad), *items[1:]]

    return st.one_of(
        st.just([]),
        st.tuples(valid, st.sampled_from([0, -1, QUANTITY_MAX + 1])).map(quantity),
        valid.map(twice),
        valid.map(lambda items: [ItemRequest(0, 1), *items]),
        st.just([ItemRequest(1 + n, 1) for n in range(ITEMS_MAX + 1)]),
    )


@st.composite
def _valid_order(
    draw: st.DrawFn, product_ids: Sequence[int] | st.SearchStrategy[int], contact_ids: Sequence[int], max_quantity: int
) -> OrderInput:
    contact = draw(st.none() | st.sampled_from(list(contact_ids))) if contact_ids else None
    return OrderInput(
        items=draw(order_items(product_ids, max_quantity=max_quantity)),
        customer_name=draw(texts(CUSTOMER_NAME_MAX)) if contact is None else draw(optional_texts(CUSTOMER_NAME_MAX)),
        contact_id=contact,
        customer_phone=draw(st.none() | phones),
        customer_email=draw(st.none() | emails),
        shipping_address=draw(optional_texts(ADDRESS_MAX)),
        notes=draw(optional_texts(NOTES_MAX)),
    )


def order_inputs(
    product_ids: Sequence[int] | st.SearchStrategy[int],
    *,
    contact_ids: Sequence[int] = (),
    invalid: bool = False,
    max_quantity: int = 3,
) -> st.SearchStrategy[OrderInput]:
    """`POST /orders` bodies over existing, priced products of one currency (and, when given,
    existing contacts). `invalid=True` breaks one rule: invalid items, no customer name and no
    contact, a too long name, a malformed phone or email, a too long address."""
    valid = _valid_order(product_ids, contact_ids, max_quantity)
    if not invalid:
        return valid
    return broken(
        valid,
        field("items", order_items(product_ids, invalid=True)),
        st.just({"customer_name": None, "contact_id": None}),
        st.just({"customer_name": "x" * (CUSTOMER_NAME_MAX + 1), "contact_id": None}),
        field("customer_phone", bad_phones),
        field("customer_email", bad_emails),
        field("shipping_address", too_long(ADDRESS_MAX)),
    )
