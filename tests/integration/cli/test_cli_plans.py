"""`engage plans ...` on a temporary SQLite database."""

from __future__ import annotations

import json
from collections.abc import Callable

from click.testing import Result

from engage_core.services import Services

RunCli = Callable[..., Result]
OneLineError = Callable[[Result], str]
OpenServices = Callable[[], Services]


def test_list_shows_the_three_plans(run_cli: RunCli) -> None:
    """`plans list` shows starter, pro and business."""
    result = run_cli("plans", "list", "--json")

    assert result.exit_code == 0, result.output
    assert [plan["slug"] for plan in json.loads(result.stdout)] == ["starter", "pro", "business"]


def test_list_text_names_limits_and_features(run_cli: RunCli) -> None:
    """The text listing gives one line per plan with its limits."""
    lines = run_cli("plans", "list").stdout.splitlines()

    assert len(lines) == 3
    assert lines[0].startswith("starter (") and "contacts=" in lines[0]


def test_set_changes_a_limit_in_the_database(run_cli: RunCli, open_services: OpenServices) -> None:
    """`--limit contacts=5` is stored."""
    result = run_cli("plans", "set", "starter", "--limit", "contacts=5")

    assert result.exit_code == 0, result.output
    assert open_services().plans.get("starter").limit("contacts") == 5


def test_set_switches_features_on_and_off(run_cli: RunCli, open_services: OpenServices) -> None:
    """`--feature webhooks=on --feature booking=off` changes both."""
    run_cli("plans", "set", "starter", "--feature", "webhooks=on", "--feature", "booking=off")

    plan = open_services().plans.get("starter")

    assert plan.has("webhooks") and not plan.has("booking")


def test_set_json_prints_the_changed_plan(run_cli: RunCli) -> None:
    """`--json` prints the plan after the change."""
    result = run_cli("plans", "set", "pro", "--name", "Professional", "--json")

    assert json.loads(result.stdout)["name"] == "Professional"


def test_an_unknown_limit_is_one_line_error(run_cli: RunCli, one_line_error: OneLineError) -> None:
    """A limit name outside the list is refused in one line."""
    result = run_cli("plans", "set", "starter", "--limit", "widgets=3")

    assert "widgets" in one_line_error(result)


def test_a_non_numeric_limit_is_one_line_error(run_cli: RunCli, one_line_error: OneLineError) -> None:
    """`--limit contacts=many` is refused in one line."""
    result = run_cli("plans", "set", "starter", "--limit", "contacts=many")

    assert "whole number" in one_line_error(result)


def test_a_bad_feature_switch_is_one_line_error(run_cli: RunCli, one_line_error: OneLineError) -> None:
    """A feature value other than on or off is refused in one line."""
    result = run_cli("plans", "set", "starter", "--feature", "webhooks=maybe")

    assert "on or off" in one_line_error(result)


def test_an_unknown_plan_is_one_line_error(run_cli: RunCli, one_line_error: OneLineError) -> None:
    """A plan that does not exist is refused in one line."""
    result = run_cli("plans", "set", "platinum", "--limit", "contacts=5")

    assert "not found" in one_line_error(result).lower()
