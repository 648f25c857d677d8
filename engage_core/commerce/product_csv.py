"""Product catalog CSV files (SPEC 4, Knowledge base: CSV columns), parsed with the stdlib `csv`.

The file is UTF-8 (a byte-order mark, as spreadsheets write it, is skipped), comma-separated, with
a header row. Header names are matched case-insensitively, spaces read as underscores
(`Product Name` is `product_name`). Columns::

    | column | aliases | product field |
    |---|---|---|
    | `product_name` | `name` | product_name (required in every row) |
    | `description` | `product_description` | product_description |
    | `sku`, `price`, `currency`, `category`, `image_url` | | the same |
    | `stock` | `stock_quantity` | stock_quantity (blank: stock not tracked) |

Any other named column is kept in the product's `product_attributes` under its header name (so a
`purchase_url` column gives the product its purchase URL); blank cells are left out.

Rows are numbered as a spreadsheet shows them: the header is row 1, the first product row 2.
Blank rows are skipped. Every problem is reported at once, keyed `csv_file.row_<n>.<column>`
(the column as the header names it), `csv_file.header` or `csv_file`; one bad row rejects the
whole file, so nothing of it is stored.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping

from engage_core.commerce.products import MAX_PRODUCTS_PER_REQUEST, ProductDraft, ProductInput, validate_product
from engage_core.kernel.errors import ValidationFailed

FIELD = "csv_file"

COLUMNS: Mapping[str, str] = {
    "product_name": "product_name",
    "name": "product_name",
    "description": "product_description",
    "product_description": "product_description",
    "sku": "sku",
    "price": "price",
    "currency": "currency",
    "category": "category",
    "stock": "stock_quantity",
    "stock_quantity": "stock_quantity",
    "image_url": "image_url",
}
"""Header name -> `ProductInput` field."""


def parse_products_csv(content: bytes | str) -> list[ProductDraft]:
    """Every product row of the file, validated. Raises ValidationFailed naming each bad row and column."""
    text = _decode(content)
    try:
        records = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    except csv.Error as exc:
        raise ValidationFailed.on(FIELD, f"The CSV file could not be read: {exc}.") from exc
    numbered = [(number, record) for number, record in enumerate(records, start=1) if any(c.strip() for c in record)]
    if not numbered:
        raise ValidationFailed.on(FIELD, "The CSV file is empty: it needs a header row and at least one product row.")
    (_, header), rows = numbered[0], numbered[1:]
    columns = _columns(header)
    if not rows:
        raise ValidationFailed.on(FIELD, "The CSV file has a header but no product rows.")
    if len(rows) > MAX_PRODUCTS_PER_REQUEST:
        raise ValidationFailed.on(FIELD, f"The CSV file may have at most {MAX_PRODUCTS_PER_REQUEST} product rows.")
    errors: dict[str, list[str]] = {}
    drafts: list[ProductDraft] = []
    for number, record in rows:
        try:
            drafts.append(_row(number, record, columns))
        except ValidationFailed as exc:
            for key, messages in exc.errors.items():
                errors.setdefault(key, []).extend(messages)
    if errors:
        first_key, first_messages = next(iter(errors.items()))
        raise ValidationFailed(errors, f"The CSV file has errors, first in {_where(first_key)}: {first_messages[0]}")
    return drafts


def _decode(content: bytes | str) -> str:
    if isinstance(content, str):
        return content.removeprefix("\ufeff")
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValidationFailed.on(FIELD, "The CSV file must be UTF-8 text.") from exc


def _columns(header: list[str]) -> list[tuple[str, str | None]]:
    """For each position: the column name as written (normalised) and its product field (None:
    kept as an attribute; an unnamed column is skipped)."""
    names = [cell.strip().lower().replace(" ", "_") for cell in header]
    problems: list[str] = []
    seen: dict[str, str] = {}
    for name in names:
        field = COLUMNS.get(name)
        key = field or name
        if not name:
            continue
        if key in seen:
            problems.append(
                f"The column {name} appears twice."
                if seen[key] == name
                else f"The columns {seen[key]} and {name} both give the {key}; keep one."
            )
        seen.setdefault(key, name)
    if "product_name" not in seen:
        problems.append("The CSV file needs a product_name (or name) column.")
    if problems:
        raise ValidationFailed({f"{FIELD}.header": problems}, problems[0])
    return [(name, COLUMNS.get(name)) for name in names]


def _row(number: int, record: list[str], columns: list[tuple[str, str | None]]) -> ProductDraft:
    prefix = f"{FIELD}.row_{number}"
    if len(record) > len(columns) and any(c.strip() for c in record[len(columns) :]):
        message = f"The row has {len(record)} values but the header names {len(columns)} columns."
        raise ValidationFailed({prefix: [message]})
    values: dict[str, str] = {}
    attributes: dict[str, str] = {}
    for (name, field), cell in zip(columns, record, strict=False):
        if not name:
            continue
        if field is not None:
            values[field] = cell
        elif cell.strip():
            attributes[name] = cell.strip()
    data = ProductInput(
        product_name=values.get("product_name", ""),
        product_description=values.get("product_description"),
        sku=values.get("sku"),
        price=values.get("price"),
        currency=values.get("currency"),
        category=values.get("category"),
        stock_quantity=values.get("stock_quantity"),
        image_url=values.get("image_url"),
        product_attributes=attributes,
    )
    column_of = {field: name for name, field in columns if field is not None}
    try:
        return validate_product(data)
    except ValidationFailed as exc:
        raise ValidationFailed(
            {f"{prefix}.{_column(key, column_of)}": messages for key, messages in exc.errors.items()}
        ) from exc


def _column(key: str, column_of: Mapping[str, str]) -> str:
    """The header name for an error on `key` (a `ProductInput` field, or an attribute path)."""
    if key.startswith("product_attributes."):
        return key.removeprefix("product_attributes.")
    return column_of.get(key, key)


def _where(key: str) -> str:
    """`csv_file.row_3.price` -> `row 3, column price`."""
    parts = key.split(".")
    if len(parts) >= 2 and parts[1].startswith("row_"):
        place = f"row {parts[1].removeprefix('row_')}"
        return place if len(parts) == 2 else f"{place}, column {'.'.join(parts[2:])}"
    return "the header" if key.endswith(".header") else "the file"
