"""Request and response bodies of products (SPEC 2, Order, order item, product; Product in a catalog).

A product is written through its catalogue (`knowledge_base.py`) with the catalog field names
(`product_name`, `product_description`) and listed by `GET /products` with the orderable names
(`name`, `description`). Prices are JSON numbers: a request's number is read as the decimal it
spells (`19.99`, never the binary float near it), rounded half up to cents, and a response's
number prints back as that same decimal.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import datetime
from decimal import Decimal
from typing import Annotated, Any

import attrs

from engage_core.commerce import products as domain
from engage_core.kernel.money import PRICE_MAX, as_number
from engage_core.media.model import MediaFile
from engage_core.services import Services
from engage_http.constraints import WHITESPACE_CLASS, Doc, Integer, Items, Text
from engage_http.converter import structures_into
from engage_http.fields import Id, Name
from engage_http.media.schemas import Media

_URL_HOST = r"[A-Za-z0-9._~%!$&'()*+,;=:\-]+"
_URL_REST = rf"[^\x00-\x1f\x7f{WHITESPACE_CLASS}]*"
HTTP_URL_PATTERN = rf"^[Hh][Tt][Tt][Pp][Ss]?://{_URL_HOST}([/?#]{_URL_REST})?$"
"""An absolute `http://` or `https://` URL: an ASCII host (no user information), then anything but
whitespace and control characters."""

HttpUrl = Annotated[
    str,
    Text(
        max_length=domain.URL_MAX,
        pattern=HTTP_URL_PATTERN,
        message="The {field} must be a valid http or https URL.",
    ),
    Doc(example="https://shop.example.com/products/espresso"),
]
CURRENCY_PATTERN = "^[A-Za-z]{3}$"
Currency = Annotated[
    str,
    Text(pattern=CURRENCY_PATTERN, message="The {field} must be a three-letter ISO 4217 code such as USD."),
    Doc(description="An ISO 4217 code, any case (`usd` is `USD`). Left out or null: `USD`.", example="USD"),
]
Price = Annotated[
    float,
    Doc(
        description=f"From 0 to {PRICE_MAX}, rounded half up to two decimal places. Left out or null: the product "
        "has no price, and cannot be ordered.",
        example=19.99,
    ),
]
Stock = Annotated[
    int,
    Integer(minimum=0, maximum=domain.STOCK_MAX),
    Doc(description="Units on hand. Left out or null: stock is not tracked, and the product never runs out."),
]
Attributes = Annotated[
    dict[str, Any],
    Doc(
        description="Extra metadata, any JSON object. A `purchase_url` in it (an http or https URL) is the "
        "product's `purchase_url`."
    ),
]

MediaFileIds = Annotated[
    tuple[Id, ...],
    Items(max_items=domain.MEDIA_FILES_MAX),
    Doc(
        description="Files of the workspace's media library (`GET /media`) to link, at most 10, in display order. "
        "Each must be the workspace's (422 otherwise); deleting a file unlinks it, e.g. `[12]`.",
    ),
]

_PURCHASE_URL = Text(
    max_length=domain.URL_MAX, pattern=HTTP_URL_PATTERN, message="The {field} must be a valid http or https URL."
)


def price_bounds(schema: dict[str, Any]) -> dict[str, Any]:
    """A price property's schema with the bounds the core enforces (`engage_core.kernel.money`)."""
    return {**schema, "minimum": 0, "maximum": float(PRICE_MAX)}


@structures_into(domain.ProductInput)
@attrs.frozen
class ProductCreate:
    """A product of a catalogue (SPEC 2, Product in a catalog)."""

    product_name: Name
    product_description: Annotated[str, Text(max_length=domain.DESCRIPTION_MAX)] | None = None
    sku: Annotated[str, Text(max_length=domain.SKU_MAX)] | None = None
    price: Price | None = None
    currency: Currency | None = None
    category: Annotated[str, Text(max_length=domain.CATEGORY_MAX)] | None = None
    stock_quantity: Stock | None = None
    image_url: HttpUrl | None = None
    is_available: bool = True
    product_attributes: Attributes | None = None
    media_file_ids: MediaFileIds | None = None

    @classmethod
    def __json_schema__(cls, schema: dict[str, Any]) -> dict[str, Any]:
        properties = schema["properties"]
        properties["price"] = price_bounds(properties["price"])
        properties["product_attributes"] = {
            **properties["product_attributes"],
            "properties": {"purchase_url": {"type": ["string", "null"], **_PURCHASE_URL.json_schema()}},
        }
        return schema


def attribute_problems(product: domain.ProductInput, path: str) -> dict[str, list[str]]:
    """What the converter cannot see inside the `product_attributes` of a `ProductCreate`, keyed
    under `path`: a `purchase_url` of the published pattern, and values JSON can carry back unchanged."""
    attributes = product.product_attributes or {}
    found: dict[str, list[str]] = {}
    purchase_url = attributes.get("purchase_url")
    if purchase_url is not None:
        field = f"{path}.product_attributes.purchase_url"
        message = (
            _PURCHASE_URL.check(purchase_url) if isinstance(purchase_url, str) else "The {field} must be a string."
        )
        if message is not None:
            found[field] = [message.replace("{field}", field)]
    if not _is_plain_json(attributes):
        field = f"{path}.product_attributes"
        found[field] = [f"The {field} may hold only valid Unicode text and finite numbers."]
    return found


def _is_plain_json(value: Any) -> bool:
    """No lone surrogate in any string and no infinite number (`1e999`), at any depth."""
    if isinstance(value, str):
        return not _has_surrogate(value)
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, Mapping):
        return all(_is_plain_json(k) and _is_plain_json(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_is_plain_json(v) for v in value)
    return True


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _number(amount: Decimal | None) -> float | None:
    return None if amount is None else as_number(amount)


LinkedMedia = Mapping[int, MediaFile]
"""The media files products link, by id (`linked_media`): those no longer in the library are left out."""


def linked_media(services: Services, account_id: int, products: Iterable[domain.Product]) -> LinkedMedia:
    """The files every product of `products` links, read in one lookup."""
    return services.media.many(account_id, {i for product in products for i in product.media_file_ids})


def _media(product: domain.Product, media: LinkedMedia) -> tuple[Media, ...]:
    return tuple(Media.of(media[i]) for i in product.media_file_ids if i in media)


@attrs.frozen
class CatalogProduct:
    """A product as its catalogue holds it (SPEC 2, Product in a catalog): the create fields plus `id`,
    `media_files` and `purchase_url`. `knowledge_base_id`, `in_stock` and the timestamps are
    additions to the SPEC fields."""

    id: int
    knowledge_base_id: int
    product_name: str
    product_description: str | None
    sku: str | None
    price: float | None = attrs.field(metadata={"description": "Null: no price, so it cannot be ordered."})
    currency: str
    category: str | None
    stock_quantity: int | None = attrs.field(metadata={"description": "Null: stock is not tracked."})
    image_url: str | None
    is_available: bool
    product_attributes: dict[str, Any]
    media_files: tuple[Media, ...] = attrs.field(
        metadata={"description": "The linked files of the media library (`media_file_ids`), in the order given."}
    )
    purchase_url: str | None = attrs.field(metadata={"description": "`product_attributes.purchase_url`."})
    in_stock: bool
    created_at: datetime
    updated_at: datetime

    # By hand: the catalogue's names (`product_name`), media ids become items, and the price is a `Decimal`.
    @classmethod
    def from_domain(cls, product: domain.Product, media: LinkedMedia) -> CatalogProduct:
        return cls(
            id=product.id,
            knowledge_base_id=product.knowledge_base_id,
            product_name=product.name,
            product_description=product.description,
            sku=product.sku,
            price=_number(product.price),
            currency=product.currency,
            category=product.category,
            stock_quantity=product.stock_quantity,
            image_url=product.image_url,
            is_available=product.is_available,
            product_attributes=dict(product.product_attributes),
            media_files=_media(product, media),
            purchase_url=product.purchase_url,
            in_stock=product.in_stock,
            created_at=product.created_at,
            updated_at=product.updated_at,
        )


@attrs.frozen
class Product:
    """An orderable product (SPEC 2). Everything after `in_stock` is an addition to the SPEC fields."""

    id: int
    name: str
    description: str | None
    sku: str | None
    category: str | None
    price: float | None = attrs.field(metadata={"description": "Null: no price, so it cannot be ordered."})
    currency: str
    stock_quantity: int | None = attrs.field(metadata={"description": "Null: stock is not tracked."})
    in_stock: bool = attrs.field(metadata={"description": "Available, and stock untracked or at least 1."})
    is_available: bool
    image_url: str | None
    purchase_url: str | None = attrs.field(metadata={"description": "`product_attributes.purchase_url`."})
    media_files: tuple[Media, ...] = attrs.field(metadata={"description": "The linked files of the media library."})
    product_attributes: dict[str, Any]
    knowledge_base_id: int = attrs.field(metadata={"description": "The catalogue holding the product."})
    created_at: datetime
    updated_at: datetime

    # By hand: media ids become items, and the price is a `Decimal` (the converter renders a float field as it is).
    @classmethod
    def from_domain(cls, product: domain.Product, media: LinkedMedia) -> Product:
        return cls(
            id=product.id,
            name=product.name,
            description=product.description,
            sku=product.sku,
            category=product.category,
            price=_number(product.price),
            currency=product.currency,
            stock_quantity=product.stock_quantity,
            in_stock=product.in_stock,
            is_available=product.is_available,
            image_url=product.image_url,
            purchase_url=product.purchase_url,
            media_files=_media(product, media),
            product_attributes=dict(product.product_attributes),
            knowledge_base_id=product.knowledge_base_id,
            created_at=product.created_at,
            updated_at=product.updated_at,
        )


@structures_into(domain.ProductFilter)
@attrs.frozen
class ProductFilters:
    """Query filters of `GET /products`."""

    search: str | None = attrs.field(
        default=None, metadata={"description": "Case-insensitive substring of the name, SKU or category."}
    )
    category: str | None = attrs.field(default=None, metadata={"description": "A category, any case."})


__all__ = [
    "HTTP_URL_PATTERN",
    "CatalogProduct",
    "LinkedMedia",
    "Product",
    "ProductCreate",
    "ProductFilters",
]
