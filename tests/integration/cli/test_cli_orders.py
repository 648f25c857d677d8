"""`engage orders import ACCOUNT_ID FILE` on a temporary SQLite database."""

from __future__ import annotations

import json
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from engage_cli.main import cli
from engage_core.commerce.orders import OrderFilter
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services

RunCli = Callable[..., Result]
OneLineError = Callable[[Result], str]
NewAccount = Callable[..., dict[str, Any]]
OpenServices = Callable[[], Services]


def store_order(reference: str = "wc-1001", **fields: Any) -> dict[str, Any]:
    order: dict[str, Any] = {
        "external_reference": reference,
        "customer_name": "Ada Lovelace",
        "currency": "EUR",
        "items": [{"product_name": "Green tea", "product_sku": "TEA-1", "quantity": 2, "unit_price": 19.99}],
    }
    order.update(fields)
    return order


@pytest.fixture
def account_id(create_account: NewAccount) -> int:
    created: int = create_account("Acme")["account_id"]
    return created


@pytest.fixture
def write_json(tmp_path: Path) -> Callable[[Any], str]:
    """`write_json(document)`: the path of a file holding `document` as JSON."""
    counter = iter(range(1, 1000))

    def write(document: Any) -> str:
        path = tmp_path / f"orders-{next(counter)}.json"
        path.write_text(json.dumps(document), encoding="utf-8")
        return str(path)

    return write


def stored_references(open_services: OpenServices, account_id: int) -> list[str | None]:
    page = open_services().orders.find(account_id, OrderFilter(), PageRequest(1, 100))
    return sorted(order.external_reference for order in page.items)


def test_one_order_prints_its_id_reference_and_created(
    run_cli: RunCli, write_json: Callable[[Any], str], account_id: int
) -> None:
    """A file holding one order object prints `<id>\\t<reference>\\tcreated`."""
    result = run_cli("orders", "import", str(account_id), write_json(store_order()))
    assert result.exit_code == 0, result.output
    assert result.stdout == "1\twc-1001\tcreated\n"


def test_an_array_prints_one_line_per_order_in_file_order(
    run_cli: RunCli, write_json: Callable[[Any], str], account_id: int
) -> None:
    """Each order of an array is imported and printed in turn."""
    result = run_cli("orders", "import", str(account_id), write_json([store_order("wc-2"), store_order("wc-1")]))
    assert result.exit_code == 0, result.output
    assert [line.split("\t")[1:] for line in result.stdout.splitlines()] == [["wc-2", "created"], ["wc-1", "created"]]


def test_the_imported_order_comes_from_the_store_at_its_prices(
    run_cli: RunCli, write_json: Callable[[Any], str], account_id: int, open_services: OpenServices
) -> None:
    """The stored order is `store_platform`, in the store's currency, priced exactly as sent."""
    run_cli("orders", "import", str(account_id), write_json(store_order()))
    order = open_services().orders.get(account_id, 1)
    assert (order.created_by, order.external_reference, order.currency, order.total) == (
        "store_platform",
        "wc-1001",
        "EUR",
        Decimal("39.98"),
    )


def test_importing_a_reference_again_reports_the_existing_order(
    run_cli: RunCli, write_json: Callable[[Any], str], account_id: int
) -> None:
    """A second import of the same reference prints the same id and `existing`."""
    path = write_json(store_order())
    run_cli("orders", "import", str(account_id), path)
    result = run_cli("orders", "import", str(account_id), path)
    assert result.exit_code == 0, result.output
    assert result.stdout == "1\twc-1001\texisting\n"


def test_importing_a_reference_again_stores_no_second_order(
    run_cli: RunCli, write_json: Callable[[Any], str], account_id: int, open_services: OpenServices
) -> None:
    """Idempotent on the store reference: the workspace keeps one order per reference."""
    path = write_json(store_order())
    run_cli("orders", "import", str(account_id), path)
    run_cli("orders", "import", str(account_id), path)
    assert stored_references(open_services, account_id) == ["wc-1001"]


def test_a_dash_reads_the_orders_from_stdin(database_url: str, account_id: int) -> None:
    """`-` reads the JSON document from standard input."""
    arguments = ["--database-url", database_url, "orders", "import", str(account_id), "-"]
    result = CliRunner().invoke(cli, arguments, input=json.dumps([store_order()]))
    assert result.exit_code == 0, result.output
    assert result.stdout == "1\twc-1001\tcreated\n"


def test_a_summary_goes_to_stderr(run_cli: RunCli, write_json: Callable[[Any], str], account_id: int) -> None:
    """Counts of created and existing orders are on stderr, so stdout stays one line per order."""
    path = write_json([store_order("wc-1"), store_order("wc-2")])
    run_cli("orders", "import", str(account_id), write_json(store_order("wc-1")))
    result = run_cli("orders", "import", str(account_id), path)
    assert result.stderr == "2 orders: 1 created, 1 existing.\n"


def test_invalid_json_is_a_one_line_error(
    run_cli: RunCli, account_id: int, tmp_path: Path, one_line_error: OneLineError
) -> None:
    """A file that is not JSON is refused on one line naming it."""
    path = tmp_path / "broken.json"
    path.write_text('{"external_reference": ', encoding="utf-8")
    line = one_line_error(run_cli("orders", "import", str(account_id), str(path)))
    assert line.startswith(f"Error: {path} is not valid JSON")


@pytest.mark.parametrize("document", [[1, 2], "wc-1", 7, [store_order(), []]])
def test_a_document_that_is_not_orders_is_a_one_line_error(
    run_cli: RunCli, write_json: Callable[[Any], str], account_id: int, one_line_error: OneLineError, document: Any
) -> None:
    """Only an object or an array of objects is accepted."""
    line = one_line_error(run_cli("orders", "import", str(account_id), write_json(document)))
    assert "must hold one order object or an array of order objects" in line


def test_an_empty_array_is_a_one_line_error(
    run_cli: RunCli, write_json: Callable[[Any], str], account_id: int, one_line_error: OneLineError
) -> None:
    """An empty array is almost certainly a mistake: refused, naming the file."""
    assert "holds no orders" in one_line_error(run_cli("orders", "import", str(account_id), write_json([])))


def test_an_invalid_order_names_the_order_and_the_field(
    run_cli: RunCli, write_json: Callable[[Any], str], account_id: int, one_line_error: OneLineError
) -> None:
    """The error names the order's position, its reference and each bad field path."""
    bad = store_order("wc-2", items=[{"product_name": "Tea", "quantity": 0, "unit_price": 1}])
    line = one_line_error(run_cli("orders", "import", str(account_id), write_json([store_order("wc-1"), bad])))
    assert line.startswith("Error: Order 2 (wc-2): items.0.quantity: ")


def test_an_invalid_order_stops_the_import_before_anything_is_stored(
    run_cli: RunCli, write_json: Callable[[Any], str], account_id: int, open_services: OpenServices
) -> None:
    """Every order is checked first: one malformed order means none is imported."""
    bad = store_order("wc-2", customer_name="   ")
    run_cli("orders", "import", str(account_id), write_json([store_order("wc-1"), bad]))
    assert stored_references(open_services, account_id) == []


def test_an_order_the_service_refuses_keeps_the_ones_before_it(
    run_cli: RunCli,
    write_json: Callable[[Any], str],
    account_id: int,
    open_services: OpenServices,
    one_line_error: OneLineError,
) -> None:
    """An unknown contact stops the import at that order, says so, and the earlier orders stay."""
    refused = store_order("wc-2", contact_id=999)
    result = run_cli("orders", "import", str(account_id), write_json([store_order("wc-1"), refused]))
    line = one_line_error(result)
    assert line.startswith("Error: Order 2 (wc-2): contact_id: The selected contact does not exist.")
    assert stored_references(open_services, account_id) == ["wc-1"]


def test_an_unknown_account_is_a_one_line_error(
    run_cli: RunCli, write_json: Callable[[Any], str], account_id: int, one_line_error: OneLineError
) -> None:
    """Importing into an account that does not exist names it."""
    line = one_line_error(run_cli("orders", "import", "999", write_json(store_order())))
    assert line == "Error: Account 999 not found."


def test_a_store_url_without_a_token_is_a_one_line_error(
    run_cli: RunCli, write_json: Callable[[Any], str], account_id: int, one_line_error: OneLineError
) -> None:
    """An incomplete store configuration is reported before anything is imported."""
    result = run_cli(
        "orders", "import", str(account_id), write_json(store_order()), env={"ENGAGE_STORE_URL": "https://b.example"}
    )
    assert "ENGAGE_STORE_TOKEN must be set" in one_line_error(result)
