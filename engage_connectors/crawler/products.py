"""Products a page declares with schema.org `Product`, in JSON-LD or in microdata.

JSON-LD: every `<script type="application/ld+json">` is read (a script that is not valid JSON is
skipped); `Product` objects are found anywhere in it: at the top, in a list, in `@graph`, or nested
(an `ItemList`'s `itemListElement`, a `WebPage`'s `mainEntity`). The price comes from `offers`: an
`Offer` (`price`, or `priceSpecification.price`), an `AggregateOffer` (`lowPrice`, else `price`), or
a list of them (the first with a price); `priceCurrency` from the same offer.

Microdata: an element with `itemscope` and an `itemtype` ending in `schema.org/Product` starts a
product; its `itemprop`s `name`, `description`, `sku`, `image`, `url` are read as HTML says (`content`,
the `href` of a link, the `src` of an image, else the element's text); an `itemprop="offers"` scope
inside it gives `price` and `priceCurrency` the same way. Properties of other nested scopes (a
`Brand`, a `Review`) are ignored.

A product without a name is dropped. A price that is not a number, negative or too large is
dropped (the product is kept without it); the currency must be three letters.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from decimal import Decimal, InvalidOperation
from html.parser import HTMLParser
from typing import Any

import attrs

from engage_connectors.crawler.urls import normalise_url
from engage_core.kernel.money import PRICE_MAX, quantize
from engage_core.knowledge.crawling import FoundProduct

MAX_TEXT = 5000
_CURRENCY = re.compile(r"^[A-Za-z]{3}$")
_NUMBER = re.compile(r"-?\d+(?:[.,]\d+)*")
_EXPONENT = re.compile(r"\d[eE][+-]?\d")
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
)


def find_products(html: str, page_url: str) -> tuple[FoundProduct, ...]:
    """Every product `html` declares (JSON-LD first, then microdata), without exact duplicates."""
    parser = _ProductParser()
    parser.feed(html)
    parser.close()
    found: list[FoundProduct] = []
    for script in parser.scripts:
        try:
            data = json.loads(script)
        except ValueError:
            continue
        for item in _json_products(data):
            product = _from_json(item, page_url)
            if product is not None:
                found.append(product)
    for item in parser.products:
        product = _from_microdata(item, page_url)
        if product is not None:
            found.append(product)
    return tuple(dict.fromkeys(found))


def _is_type(node: dict[str, Any], name: str) -> bool:
    kind = node.get("@type")
    kinds = kind if isinstance(kind, list) else [kind]
    return any(isinstance(k, str) and k.rsplit("/", 1)[-1] == name for k in kinds)


def _json_products(data: Any, depth: int = 0) -> Iterator[dict[str, Any]]:
    if depth > 20:  # deliberately shallow: a page's JSON-LD is never this deep
        return
    if isinstance(data, list):
        for item in data:
            yield from _json_products(item, depth + 1)
    elif isinstance(data, dict):
        if _is_type(data, "Product") or _is_type(data, "ProductGroup"):
            yield data
            return
        for key, value in data.items():
            if key != "offers" and isinstance(value, list | dict):
                yield from _json_products(value, depth + 1)


def _text(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("name") or value.get("url") or value.get("@id")
    if isinstance(value, int | float) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        return None
    value = " ".join(value.split())
    return value[:MAX_TEXT] or None


def _image(value: Any) -> str | None:
    if isinstance(value, list):
        value = value[0] if value else None
    if isinstance(value, dict):
        value = value.get("url") or value.get("contentUrl")
    return value if isinstance(value, str) else None


def price_of(value: Any) -> Decimal | None:
    """A price as the page wrote it (`19.99`, `"1,299.00"`, `"19,99"`), exact to the cent, or None."""
    if isinstance(value, bool) or value is None:
        return None
    text = repr(value) if isinstance(value, float) else str(value).strip()
    text = text.replace("\u00a0", "").replace(" ", "")
    numbers = _NUMBER.findall(text)
    if len(numbers) != 1 or _EXPONENT.search(text):  # "10-20", "1e999": not one plain price
        return None
    number = numbers[0]
    if "," in number and "." in number:  # the last separator is the decimal one
        decimal_mark = "." if number.rfind(".") > number.rfind(",") else ","
        number = number.replace("," if decimal_mark == "." else ".", "").replace(",", ".")
    elif number.count(",") > 1 or number.count(".") > 1:  # 1,299,000 or 1.299.000: thousands only
        number = number.replace(",", "").replace(".", "")
    elif "," in number:  # 1,299 (thousands) or 19,99 (decimal comma)
        number = number.replace(",", "" if len(number.rpartition(",")[2]) == 3 else ".")
    try:
        amount = Decimal(number)
    except InvalidOperation:
        return None
    if not amount.is_finite() or amount < 0 or amount > PRICE_MAX:
        return None
    return quantize(amount)


def _currency(value: Any) -> str | None:
    text = _text(value)
    return text.upper() if text and _CURRENCY.match(text) else None


def _offer_price(offers: Any) -> tuple[Decimal | None, str | None]:
    candidates = offers if isinstance(offers, list) else [offers]
    for offer in candidates:
        if not isinstance(offer, dict):
            continue
        spec = offer.get("priceSpecification")
        spec = spec[0] if isinstance(spec, list) and spec else spec
        spec = spec if isinstance(spec, dict) else {}
        raw = offer.get("lowPrice") if _is_type(offer, "AggregateOffer") else None
        for value in (raw, offer.get("price"), spec.get("price")):
            price = price_of(value)
            if price is not None:
                return price, _currency(offer.get("priceCurrency") or spec.get("priceCurrency"))
    return None, None


def _from_json(node: dict[str, Any], page_url: str) -> FoundProduct | None:
    name = _text(node.get("name"))
    if name is None:
        return None
    price, currency = _offer_price(node.get("offers"))
    url = _text(node.get("url"))
    image = _image(node.get("image"))
    return FoundProduct(
        name=name,
        price=price,
        currency=currency,
        sku=_text(node.get("sku")),
        url=normalise_url(url, page_url) if url else page_url,
        image_url=normalise_url(image, page_url) if image else None,
        description=_text(node.get("description")),
    )


def _from_microdata(props: dict[str, str], page_url: str) -> FoundProduct | None:
    name = _text(props.get("name"))
    if name is None:
        return None
    url = props.get("url")
    image = props.get("image")
    return FoundProduct(
        name=name,
        price=price_of(props.get("price")),
        currency=_currency(props.get("priceCurrency")),
        sku=_text(props.get("sku")),
        url=normalise_url(url, page_url) if url else page_url,
        image_url=normalise_url(image, page_url) if image else None,
        description=_text(props.get("description")),
    )


@attrs.define
class _Open:
    """An open element: the scope it belongs to, and the property whose text it is collecting."""

    tag: str
    scope: dict[str, str] | None  # the product this element's itemprops fill; None outside products
    prop: str | None = None
    text: list[str] = attrs.Factory(list)


_VALUE_ATTRIBUTES = {
    **dict.fromkeys(("a", "area", "link"), "href"),
    **dict.fromkeys(("img", "audio", "embed", "iframe", "source", "track", "video"), "src"),
    "meta": "content",
    "data": "value",
}
"""Where an `itemprop` element keeps its value (HTML microdata); any other element: its text."""
_PRODUCT_PROPS = frozenset({"name", "description", "sku", "image", "url", "price", "priceCurrency"})


class _ProductParser(HTMLParser):
    """Collects JSON-LD scripts and microdata products in one pass."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scripts: list[str] = []
        self.products: list[dict[str, str]] = []
        self._script: list[str] | None = None
        self._stack: list[_Open] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "script":
            kind = values.get("type", "").split(";")[0].strip().lower()
            self._script = [] if kind == "application/ld+json" else None
            return
        scope = self._stack[-1].scope if self._stack else None
        prop = values.get("itemprop", "").strip() or None
        if "itemscope" in values:
            itemtype = values.get("itemtype", "")
            if any(t.rstrip("/").endswith("schema.org/Product") for t in itemtype.split()):
                scope = {}
                self.products.append(scope)
            elif not (prop == "offers" and scope is not None):
                scope = None  # another thing (a brand, a review): its props are not the product's
            prop = None  # the itemscope element itself carries no text value
        entry = _Open(tag, scope)
        if prop and scope is not None and prop in _PRODUCT_PROPS and prop not in scope:
            attribute = "content" if "content" in values else _VALUE_ATTRIBUTES.get(tag)
            if attribute is not None:
                scope[prop] = values.get(attribute, "")
            else:
                entry.prop = prop  # the element's text, collected until it closes
        if tag in _VOID:
            return
        self._stack.append(entry)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID and self._stack and self._stack[-1].tag == tag:
            self._close(self._stack.pop())

    def handle_data(self, data: str) -> None:
        if self._script is not None:
            self._script.append(data)
            return
        for entry in self._stack:
            if entry.prop is not None:
                entry.text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            if self._script is not None:
                self.scripts.append("".join(self._script))
            self._script = None
            return
        if not any(entry.tag == tag for entry in self._stack):
            return  # a stray end tag
        while self._stack:
            entry = self._stack.pop()
            self._close(entry)
            if entry.tag == tag:
                break

    def close(self) -> None:
        super().close()
        while self._stack:
            self._close(self._stack.pop())

    def _close(self, entry: _Open) -> None:
        if entry.prop is not None and entry.scope is not None and entry.prop not in entry.scope:
            entry.scope[entry.prop] = " ".join("".join(entry.text).split())
