"""Product values and the validation of catalog product fields (SPEC 2, Product in a catalog)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from engage_core.commerce.products import STOCK_MAX, ProductInput, validate_product
from engage_core.kernel.errors import ValidationFailed

from ..factories import product_entity


def errors_of(**fields: Any) -> dict[str, list[str]]:
    with pytest.raises(ValidationFailed) as caught:
        validate_product(ProductInput(**{"product_name": "Tea", **fields}))
    return caught.value.errors


# -- derived fields --------------------------------------------------------------------------------


def test_an_available_product_with_stock_is_in_stock() -> None:
    """is_available and one on hand: in_stock."""
    assert product_entity(stock_quantity=1).in_stock


def test_a_product_with_no_stock_left_is_not_in_stock() -> None:
    """Zero on hand: not in_stock, although available."""
    assert not product_entity(stock_quantity=0).in_stock


def test_an_untracked_product_is_always_in_stock() -> None:
    """stock_quantity null means stock is not tracked: in_stock while available."""
    assert product_entity(stock_quantity=None).in_stock


def test_an_unavailable_product_is_never_in_stock() -> None:
    """is_available false wins over any stock."""
    assert not product_entity(is_available=False, stock_quantity=50).in_stock


def test_purchase_url_comes_from_the_attributes() -> None:
    """purchase_url is product_attributes.purchase_url."""
    product = product_entity(product_attributes={"purchase_url": "https://shop.example.com/tea", "color": "green"})
    assert product.purchase_url == "https://shop.example.com/tea"


@pytest.mark.parametrize("attributes", [{}, {"purchase_url": None}, {"purchase_url": 42}])
def test_purchase_url_is_null_without_a_string(attributes: dict[str, Any]) -> None:
    """No purchase_url attribute, or a non-string one: null."""
    assert product_entity(product_attributes=attributes).purchase_url is None


# -- validation ------------------------------------------------------------------------------------


def test_defaults_are_usd_available_untracked_and_no_attributes() -> None:
    """Only product_name given: USD, available, no price, untracked stock, empty attributes."""
    draft = validate_product(ProductInput(product_name="Tea"))
    assert (draft.currency, draft.is_available, draft.price, draft.stock_quantity, dict(draft.product_attributes)) == (
        "USD",
        True,
        None,
        None,
        {},
    )


def test_every_field_is_kept() -> None:
    """The catalog fields map onto the draft, trimmed and typed."""
    draft = validate_product(
        ProductInput(
            product_name=" Green tea ",
            product_description="Loose leaf",
            sku="TEA-1",
            price=12.5,
            currency="eur",
            category="Drinks",
            stock_quantity="7",
            image_url="https://cdn.example.com/tea.png",
            is_available=False,
            product_attributes={"purchase_url": "https://shop.example.com/tea", "origin": "Japan"},
        )
    )
    assert (draft.name, draft.price, draft.currency, draft.stock_quantity, draft.is_available) == (
        "Green tea",
        Decimal("12.50"),
        "EUR",
        7,
        False,
    )
    assert draft.product_attributes == {"purchase_url": "https://shop.example.com/tea", "origin": "Japan"}


def test_product_name_is_required() -> None:
    """A blank name is refused on product_name."""
    assert list(errors_of(product_name="  ")) == ["product_name"]


def test_every_bad_field_is_reported_at_once() -> None:
    """Bad price, currency, stock and image_url: four errors in one ValidationFailed."""
    errors = errors_of(price="free", currency="dollars", stock_quantity=-1, image_url="ftp://x")
    assert set(errors) == {"price", "currency", "stock_quantity", "image_url"}


@pytest.mark.parametrize("stock", [-1, "1.5", "ten", True, STOCK_MAX + 1])
def test_stock_is_a_whole_number_from_zero(stock: Any) -> None:
    """Negative, fractional, non-numeric, boolean or too large stock is refused."""
    assert list(errors_of(stock_quantity=stock)) == ["stock_quantity"]


@pytest.mark.parametrize("stock", [None, "", "  "])
def test_blank_stock_is_untracked(stock: Any) -> None:
    """No stock_quantity means the stock is not tracked."""
    assert validate_product(ProductInput(product_name="Tea", stock_quantity=stock)).stock_quantity is None


@pytest.mark.parametrize("url", ["not a url", "javascript:alert(1)", "https://", "/relative/path.png"])
def test_image_url_must_be_http(url: str) -> None:
    """image_url must be an absolute http or https URL."""
    assert list(errors_of(image_url=url)) == ["image_url"]


def test_a_bad_purchase_url_names_its_attribute_path() -> None:
    """A purchase_url attribute that is not a URL is refused on product_attributes.purchase_url."""
    assert list(errors_of(product_attributes={"purchase_url": "shop"})) == ["product_attributes.purchase_url"]


def test_product_attributes_must_be_an_object() -> None:
    """A list where the attributes object belongs is refused."""
    assert list(errors_of(product_attributes=["a"])) == ["product_attributes"]
