"""`engage plans ...`: list the plans client workspaces run on, and edit their limits and features.

A change applies at once to every workspace on the plan.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import click

from engage_cli.context import CliState, pass_state
from engage_core.kernel.unset import UNSET
from engage_core.plans.model import FEATURES, LIMITS, Plan
from engage_core.plans.plan_service import PlanPatch

_SWITCHES = {"on": True, "off": False}


@click.group()
def plans() -> None:
    """List and edit plans (limits and features of client workspaces)."""


@plans.command(name="list")
@click.option("--json", "as_json", is_flag=True, help="Print the plans as a JSON array.")
@pass_state
def list_plans(state: CliState, as_json: bool) -> None:
    """List every plan with its limits and enabled features."""
    found = state.services().plans.list()
    if as_json:
        click.echo(json.dumps([_document(plan) for plan in found]))
        return
    for plan in found:
        click.echo(_describe(plan))


@plans.command(name="set")
@click.argument("slug", metavar="PLAN")
@click.option("--name", default=None, help="A new display name.")
@click.option("--limit", "limits", multiple=True, metavar="NAME=VALUE", help=f"One of: {', '.join(LIMITS)}.")
@click.option("--feature", "features", multiple=True, metavar="NAME=on|off", help=f"One of: {', '.join(FEATURES)}.")
@click.option("--json", "as_json", is_flag=True, help="Print the changed plan as JSON.")
@pass_state
def set_plan(
    state: CliState, slug: str, name: str | None, limits: Sequence[str], features: Sequence[str], as_json: bool
) -> None:
    """Change a plan's name, limits or features; options may repeat."""
    patch = PlanPatch(
        name=UNSET if name is None else name,
        limits={key: _whole_number(key, value) for key, value in map(_pair, limits)} if limits else UNSET,
        features={key: _switch(key, value) for key, value in map(_pair, features)} if features else UNSET,
    )
    plan = state.services().plans.update(slug, patch)
    click.echo(json.dumps(_document(plan)) if as_json else f"Updated plan {_describe(plan)}")


def _pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise click.ClickException(f"Expected NAME=VALUE, got {text!r}.")
    return key.strip(), value.strip()


def _whole_number(key: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise click.ClickException(f"The limit {key} must be a whole number, got {value!r}.") from None


def _switch(key: str, value: str) -> bool:
    if value.lower() not in _SWITCHES:
        raise click.ClickException(f"The feature {key} must be on or off, got {value!r}.")
    return _SWITCHES[value.lower()]


def _document(plan: Plan) -> dict[str, object]:
    return {
        "id": plan.id,
        "slug": plan.slug,
        "name": plan.name,
        "limits": {name: plan.limit(name) for name in LIMITS},
        "features": plan.feature_flags(),
    }


def _describe(plan: Plan) -> str:
    limits = ", ".join(f"{name}={plan.limit(name)}" for name in LIMITS)
    enabled = ", ".join(feature for feature in FEATURES if plan.has(feature)) or "none"
    return f"{plan.slug} ({plan.name}): {limits}; features: {enabled}"
