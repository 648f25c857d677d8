"""`engage orders import ACCOUNT_ID FILE`: record orders from a store platform, from a JSON file.

FILE (`-` for stdin) holds one order object or an array of them, each the body of
`POST /api/v1/store/orders` (`docs/stores.md`). Every order is checked before any is imported; then
they are imported in turn, each printed on one line: `<id>\\t<reference>\\tcreated` or `existing`
(an order whose reference the workspace already has is left as it is). An order the service
refuses stops the command; those printed before it are stored, and running the file again is safe.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import IO, Any

import click

from engage_cli.context import CliState, pass_state
from engage_core.commerce.order_service import StoreOrderInput
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_http.commerce.store_schemas import StoreOrderImport
from engage_http.converter import structure, to_core


@click.group()
def orders() -> None:
    """Orders of a workspace."""


@orders.command(name="import")
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@click.argument("source", metavar="FILE", type=click.File("rb"))
@pass_state
def import_orders(state: CliState, account_id: int, source: IO[bytes]) -> None:
    """Import orders from a store platform (JSON: one order or an array; `-` reads stdin).

    Idempotent on each order's `external_reference`: an order already imported is reported as
    `existing` and left unchanged. Prints `<id> <reference> created|existing`, tab-separated.
    """
    name = getattr(source, "name", "-")
    label = click.format_filename(name) if isinstance(name, str) and name not in ("-", "<stdin>") else "stdin"
    batch = parse_orders(source.read(), label)
    services = state.services()
    try:
        services.accounts.get(account_id)
    except NotFound as exc:
        raise click.ClickException(f"Account {account_id} not found.") from exc
    created = 0
    for position, data in enumerate(batch):
        try:
            placed = services.orders.import_store_order(account_id, data)
        except ValidationFailed as exc:
            raise click.ClickException(_refused(exc, position, data, len(batch))) from exc
        created += not placed.is_duplicate
        outcome = "existing" if placed.is_duplicate else "created"
        click.echo(f"{placed.order.id}\t{placed.order.external_reference}\t{outcome}")
    click.echo(f"{len(batch)} orders: {created} created, {len(batch) - created} existing.", err=True)


def parse_orders(raw: bytes, label: str) -> list[StoreOrderInput]:
    """The orders of a JSON document, every one checked; a one-line `ClickException` otherwise."""
    try:
        document = json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise click.ClickException(f"{label} is not valid JSON: {_first_line(exc)}") from exc
    items: Sequence[Any] = document if isinstance(document, list) else [document]
    if not all(isinstance(item, dict) for item in items):
        raise click.ClickException(f"{label} must hold one order object or an array of order objects.")
    if not items:
        raise click.ClickException(f"{label} holds no orders.")
    parsed: list[StoreOrderInput] = []
    for position, item in enumerate(items):
        try:
            parsed.append(to_core(structure(item, StoreOrderImport)))
        except ValidationFailed as exc:
            where = _which(position, item.get("external_reference"), len(items))
            raise click.ClickException(f"{where}: {_details(exc)}") from exc
    return parsed


def _refused(exc: ValidationFailed, position: int, data: StoreOrderInput, count: int) -> str:
    message = f"{_which(position, data.external_reference, count)}: {_details(exc)}"
    if position:
        message += " (the orders before it were imported; importing the file again is safe)"
    return message


def _which(position: int, reference: object, count: int) -> str:
    """`Order 3 (wc-1003)` in a list, `The order (wc-1003)` alone."""
    name = f"Order {position + 1}" if count > 1 else "The order"
    return f"{name} ({reference})" if isinstance(reference, str) and reference.strip() else name


def _details(exc: ValidationFailed) -> str:
    details = "; ".join(f"{field}: {message}" for field, messages in exc.errors.items() for message in messages)
    return " ".join((details or exc.message).split())


def _first_line(exc: BaseException) -> str:
    return " ".join(str(exc).split()) or type(exc).__name__
