"""Product catalog CSV files: columns, aliases, row and column errors, all or nothing (SPEC 4)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from engage_core.commerce.product_csv import parse_products_csv
from engage_core.commerce.products import MAX_PRODUCTS_PER_REQUEST
from engage_core.kernel.errors import ValidationFailed


def failure(content: bytes | str) -> ValidationFailed:
    with pytest.raises(ValidationFailed) as caught:
        parse_products_csv(content)
    return caught.value


def test_every_spec_column_is_read() -> None:
    """product_name, description, sku, price, currency, category, stock, image_url."""
    content = (
        "product_name,description,sku,price,currency,category,stock,image_url\n"
        "Tea,Loose leaf,TEA-1,3.5,sar,Drinks,12,https://cdn.example.com/tea.png\n"
    )
    [draft] = parse_products_csv(content)
    assert (draft.name, draft.description, draft.sku, draft.price, draft.currency) == (
        "Tea",
        "Loose leaf",
        "TEA-1",
        Decimal("3.50"),
        "SAR",
    )
    assert (draft.category, draft.stock_quantity, draft.image_url) == ("Drinks", 12, "https://cdn.example.com/tea.png")


@pytest.mark.parametrize(("name_column", "stock_column"), [("name", "stock"), ("product_name", "stock_quantity")])
def test_aliases_name_the_same_fields(name_column: str, stock_column: str) -> None:
    """`name` is `product_name` and `stock` is `stock_quantity`."""
    [draft] = parse_products_csv(f"{name_column},{stock_column}\nTea,4\n")
    assert (draft.name, draft.stock_quantity) == ("Tea", 4)


def test_headers_ignore_case_and_spaces() -> None:
    """`Product Name` and ` PRICE ` are product_name and price."""
    [draft] = parse_products_csv("Product Name, PRICE \nTea,2\n")
    assert (draft.name, draft.price) == ("Tea", Decimal("2.00"))


def test_a_byte_order_mark_is_skipped() -> None:
    """Spreadsheets write UTF-8 with a BOM; the first header still reads as product_name."""
    [draft] = parse_products_csv("\ufeffproduct_name\nTea\n".encode())
    assert draft.name == "Tea"


def test_blank_cells_take_the_defaults() -> None:
    """Empty price, currency and stock: no price, USD, untracked."""
    [draft] = parse_products_csv("name,price,currency,stock\nTea,,,\n")
    assert (draft.price, draft.currency, draft.stock_quantity) == (None, "USD", None)


def test_other_columns_become_attributes() -> None:
    """A purchase_url column lands in product_attributes; blank extra cells are left out."""
    [first, second] = parse_products_csv("name,purchase_url,origin\nTea,https://shop.example.com/tea,\nCoffee,,Peru\n")
    assert (first.product_attributes, second.product_attributes) == (
        {"purchase_url": "https://shop.example.com/tea"},
        {"origin": "Peru"},
    )


def test_quoted_cells_may_hold_commas_and_newlines() -> None:
    """Standard CSV quoting works."""
    [draft] = parse_products_csv('name,description\n"Tea, green","Line one\nLine two"\n')
    assert (draft.name, draft.description) == ("Tea, green", "Line one\nLine two")


def test_blank_rows_are_skipped() -> None:
    """Empty lines between products produce no product."""
    assert [d.name for d in parse_products_csv("name\nTea\n\n,\nCoffee\n")] == ["Tea", "Coffee"]


def test_a_bad_cell_names_its_row_and_column() -> None:
    """Header is row 1: a bad price in the second product row is csv_file.row_3.price."""
    errors = failure("name,price\nTea,1\nCoffee,abc\n").errors
    assert errors == {"csv_file.row_3.price": ["The price must be a number."]}


def test_the_message_names_the_row_and_column() -> None:
    """The summary message says where the first problem is."""
    assert "row 3, column price" in failure("name,price\nTea,1\nCoffee,-2\n").message


def test_errors_use_the_column_name_as_written() -> None:
    """With a `stock` column, a bad stock is reported on `stock`, and a missing name on `name`."""
    errors = failure("name,stock\n,x\n").errors
    assert set(errors) == {"csv_file.row_2.name", "csv_file.row_2.stock"}


def test_row_numbers_count_blank_rows() -> None:
    """Rows are numbered as a spreadsheet shows them, blank rows included."""
    assert set(failure("name,price\n\nTea,x\n").errors) == {"csv_file.row_3.price"}


def test_every_bad_row_is_reported() -> None:
    """Errors in rows 2 and 4 are both reported; the good row 3 does not hide them."""
    errors = failure("name,price\nA,x\nB,1\nC,-1\n").errors
    assert set(errors) == {"csv_file.row_2.price", "csv_file.row_4.price"}


def test_a_bad_purchase_url_column_is_named() -> None:
    """An attribute column is validated like the JSON attribute, and named by its column."""
    assert set(failure("name,purchase_url\nTea,nope\n").errors) == {"csv_file.row_2.purchase_url"}


def test_a_name_column_is_required() -> None:
    """Without product_name or name, the header is refused."""
    assert set(failure("sku,price\nA,1\n").errors) == {"csv_file.header"}


def test_two_columns_for_one_field_are_refused() -> None:
    """`name` and `product_name` together are ambiguous."""
    assert "both give" in failure("name,product_name\nA,B\n").errors["csv_file.header"][0]


def test_a_repeated_column_is_refused() -> None:
    """The same header twice is refused."""
    assert "twice" in failure("name,price,price\nA,1,2\n").errors["csv_file.header"][0]


@pytest.mark.parametrize("content", ["", "\n\n", "name\n", "name,price\n\n"])
def test_a_file_without_product_rows_is_refused(content: str) -> None:
    """An empty file, or a header alone, is refused on csv_file."""
    assert set(failure(content).errors) == {"csv_file"}


def test_a_file_must_be_utf8() -> None:
    """Latin-1 bytes are refused on csv_file."""
    assert set(failure("name\nCafé\n".encode("latin-1")).errors) == {"csv_file"}


def test_a_row_with_more_values_than_columns_is_refused() -> None:
    """Values beyond the header's columns are an error on the row."""
    assert set(failure("name,price\nTea,1,surprise\n").errors) == {"csv_file.row_2"}


def test_trailing_empty_cells_are_tolerated() -> None:
    """Spreadsheets pad rows with empty cells; that is not an error."""
    assert parse_products_csv("name,price\nTea,1,,\n")[0].name == "Tea"


def test_a_short_row_leaves_the_missing_cells_blank() -> None:
    """A row with fewer values than columns reads the rest as empty."""
    assert parse_products_csv("name,price,stock\nTea\n")[0].stock_quantity is None


def test_the_number_of_rows_is_limited() -> None:
    """More product rows than MAX_PRODUCTS_PER_REQUEST are refused."""
    content = "name\n" + "Tea\n" * (MAX_PRODUCTS_PER_REQUEST + 1)
    assert set(failure(content).errors) == {"csv_file"}
