"""Products: the orderable catalogue (SPEC 2, Order, order item, product; Product in a catalog).

A product belongs to one `product_catalog` knowledge-base entry, which is how it is created
(`POST /knowledge-base/product-catalog`, `POST /knowledge-base/{id}/products`) and deleted; orders
refer to it by id and copy its name, SKU and price when they are placed.

Rules:

- **Price** is optional. A product without one still informs the AI agent, but cannot be ordered.
  Prices are exact `Decimal`s, see `engage_core.kernel.money`.
- **Stock.** `stock_quantity` is the number on hand, or None when the product's stock is not
  tracked: an untracked product is never out of stock, taking stock from it always succeeds and
  restoring is a no-op. Tracked stock stays within 0 to `STOCK_MAX`: `ProductRepository.take_stock`
  is a conditional decrement, so two concurrent orders for the last unit cannot both get it, and
  `restore_stock` a conditional increment, so two concurrent restocks cannot together pass the maximum.
- **`in_stock`** is derived: available, and either untracked or at least one on hand.
- **Orderable** means available, priced, and (when tracked) enough stock; see `engage_core.commerce.orders`.
- **`purchase_url`** is read from `product_attributes.purchase_url` (a string, or absent).
- **`media_files`** lists linked media items of the workspace's library, at most
  `MEDIA_FILES_MAX`, in the order given; the links are kept as ids (`media_file_ids`, checked to be
  the account's files when the product is stored) and the HTTP layer renders the items. Deleting a
  media file unlinks it from every product. The first linked image is what an automatic reply
  about the product may carry (`engage_core.answering.product_images`).
- SKUs are not unique: a catalog uploaded twice, or one SKU sold in two catalogs, is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any
from urllib.parse import urlsplit

import attrs

from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.money import parse_currency, parse_price
from engage_core.kernel.pagination import PageLimits
from engage_core.kernel.validation import ErrorCollector, optional_text, required_text

NAME_MAX = 255
DESCRIPTION_MAX = 10_000
SKU_MAX = 100
CATEGORY_MAX = 255
URL_MAX = 2048
STOCK_MAX = 2_147_483_647
"""The largest stock count (a signed 32-bit `INTEGER`)."""
MEDIA_FILES_MAX = 10
"""Media files one product may link."""
MAX_PRODUCTS_PER_REQUEST = 5000
"""JSON products and CSV rows of one catalog request, together."""

PRODUCTS = PageLimits(default=15)
"""`GET /products`: SPEC 8 caps `per_page` at 100 and names no default; 15 like contacts."""


@attrs.frozen
class Product:
    id: int
    knowledge_base_id: int
    name: str
    description: str | None
    sku: str | None
    category: str | None
    price: Decimal | None
    currency: str
    stock_quantity: int | None
    image_url: str | None
    is_available: bool
    product_attributes: Mapping[str, Any]
    media_file_ids: tuple[int, ...]
    created_at: datetime
    updated_at: datetime

    @property
    def tracks_stock(self) -> bool:
        return self.stock_quantity is not None

    @property
    def in_stock(self) -> bool:
        """Available, and untracked or at least one on hand."""
        return self.is_available and (self.stock_quantity is None or self.stock_quantity > 0)

    @property
    def purchase_url(self) -> str | None:
        value = self.product_attributes.get("purchase_url")
        return value if isinstance(value, str) else None


@attrs.frozen
class ProductInput:
    """The product fields of a catalog request (SPEC 2, Product in a catalog), as received.

    `price` and `stock_quantity` also accept text, as a CSV cell gives them."""

    product_name: str
    product_description: str | None = None
    sku: str | None = None
    price: Decimal | int | float | str | None = None
    currency: str | None = None
    category: str | None = None
    stock_quantity: int | str | None = None
    image_url: str | None = None
    is_available: bool = True
    product_attributes: Mapping[str, Any] | None = None
    media_file_ids: Sequence[int] | None = None
    """Ids of media files in the workspace's library (`GET /media`), at most `MEDIA_FILES_MAX`."""


@attrs.frozen
class ProductDraft:
    """A validated new product, before it has an id."""

    name: str
    description: str | None = None
    sku: str | None = None
    category: str | None = None
    price: Decimal | None = None
    currency: str = "USD"
    stock_quantity: int | None = None
    image_url: str | None = None
    is_available: bool = True
    product_attributes: Mapping[str, Any] = attrs.Factory(dict)
    media_file_ids: tuple[int, ...] = ()
    """Checked for form here; whether they are the account's files is checked where they are stored."""


@attrs.frozen
class ProductFilter:
    """Filters of `GET /products`. `search` matches name, SKU or category (case-insensitive
    substring); `category` is a case-insensitive exact match."""

    search: str | None = None
    category: str | None = None


def validate_product(data: ProductInput) -> ProductDraft:
    """Check every field at once. Error keys are the bare field names of `ProductInput`
    (`price`, `product_attributes.purchase_url`); callers prefix them with where the product came
    from (`products.3.`, `csv_file.row_4.`)."""
    errors = ErrorCollector()
    name = errors.run(lambda: required_text("product_name", _text(data.product_name), max_length=NAME_MAX))
    description = errors.run(
        lambda: optional_text("product_description", data.product_description, max_length=DESCRIPTION_MAX)
    )
    sku = errors.run(lambda: optional_text("sku", data.sku, max_length=SKU_MAX))
    category = errors.run(lambda: optional_text("category", data.category, max_length=CATEGORY_MAX))
    price = None if _blank(data.price) else errors.run(lambda: parse_price("price", data.price))
    currency = errors.run(lambda: parse_currency("currency", data.currency))
    stock = errors.run(lambda: parse_stock("stock_quantity", data.stock_quantity))
    image_url = errors.run(lambda: optional_url("image_url", data.image_url))
    if not isinstance(data.is_available, bool):
        errors.errors["is_available"] = ["The is available field must be true or false."]
    attributes = errors.run(lambda: _attributes(data.product_attributes))
    media = errors.run(lambda: media_file_ids(data.media_file_ids))
    errors.raise_if_any()
    assert name is not None and currency is not None and attributes is not None and media is not None
    return ProductDraft(
        name=name,
        description=description,
        sku=sku,
        category=category,
        price=price,
        currency=currency,
        stock_quantity=stock,
        image_url=image_url,
        is_available=data.is_available,
        product_attributes=attributes,
        media_file_ids=media,
    )


def media_file_ids(value: Sequence[int] | None) -> tuple[int, ...]:
    """Distinct positive ids, in the order given, at most `MEDIA_FILES_MAX`; () for None."""
    if value is None:
        return ()
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise ValidationFailed.on("media_file_ids", "The media file ids must be a list of ids.")
    if any(isinstance(i, bool) or not isinstance(i, int) or i < 1 for i in value):
        raise ValidationFailed.on("media_file_ids", "Each media file id must be a positive integer.")
    ids = tuple(dict.fromkeys(value))
    if len(ids) > MEDIA_FILES_MAX:
        raise ValidationFailed.on("media_file_ids", f"A product may link at most {MEDIA_FILES_MAX} media files.")
    return ids


def parse_stock(field: str, value: int | str | None) -> int | None:
    """A whole number from 0 to `STOCK_MAX`, or None (blank) for untracked stock."""
    if _blank(value):
        return None
    message = f"The {field} must be a whole number."
    if isinstance(value, bool):
        raise ValidationFailed.on(field, message)
    if isinstance(value, str):
        text = value.strip()
        if not text.lstrip("-").isdigit() or not text.isascii():
            raise ValidationFailed.on(field, message)
        value = int(text)
    if not isinstance(value, int):
        raise ValidationFailed.on(field, message)
    if value < 0:
        raise ValidationFailed.on(field, f"The {field} must be at least 0.")
    if value > STOCK_MAX:
        raise ValidationFailed.on(field, f"The {field} may not be greater than {STOCK_MAX}.")
    return value


def stock_over_maximum(product: Product) -> str:
    """The message for an addition to `product`'s stock that `restore_stock` refused."""
    return f"The stock of {product.name} may not be greater than {STOCK_MAX}."


def optional_url(field: str, value: str | None) -> str | None:
    """An absolute http(s) URL of at most `URL_MAX` characters, or None (blank)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValidationFailed.on(field, f"The {field} must be a valid URL.")
    url = value.strip()
    if not url:
        return None
    if len(url) > URL_MAX:
        raise ValidationFailed.on(field, f"The {field} may not be greater than {URL_MAX} characters.")
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise ValidationFailed.on(field, f"The {field} must be a valid URL.") from exc
    if parts.scheme not in ("http", "https") or not parts.netloc or any(c.isspace() for c in url):
        raise ValidationFailed.on(field, f"The {field} must be a valid http or https URL.")
    return url


def _attributes(value: Mapping[str, Any] | None) -> dict[str, Any]:
    """An object of extra metadata; a `purchase_url` in it must be a URL (or null)."""
    if value is None:
        return {}
    if not isinstance(value, Mapping) or not all(isinstance(k, str) for k in value):
        raise ValidationFailed.on("product_attributes", "The product attributes must be an object.")
    attributes = dict(value)
    if attributes.get("purchase_url") is not None:
        attributes["purchase_url"] = optional_url("product_attributes.purchase_url", attributes["purchase_url"])
    return attributes


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())
