"""How the CLI prints accounts and freshly issued keys (text for people, JSON for scripts)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import click

from engage_core.accounts import Account
from engage_core.services.accounts import NewKey

_ACCOUNT_COLUMNS = ("ID", "NAME", "ACTIVE", "ORIGINS", "KEY")


def echo_new_key(issued: NewKey, *, as_json: bool, headline: str) -> None:
    """Print a plaintext key exactly once, with the warning that it cannot be shown again.

    With `as_json`, stdout is exactly `{"account_id": ..., "api_key": "..."}` and nothing else.
    """
    if as_json:
        click.echo(json.dumps({"account_id": issued.account.id, "api_key": issued.api_key}))
        return
    click.echo(headline)
    click.echo(f"API key: {issued.api_key}")
    click.echo(
        "Store this key now: it is shown only once and cannot be retrieved later "
        f"(`engage accounts rotate-key {issued.account.id}` issues a new one).",
        err=True,
    )


def describe_origins(origins: Sequence[str]) -> str:
    """`*` when every origin is allowed, else the comma-separated whitelist."""
    return "*" if not origins or "*" in origins else ", ".join(origins)


def account_table(accounts: Sequence[Account]) -> str:
    """A plain aligned table: id, name, active, origins, key hint (never the key)."""
    rows = [_ACCOUNT_COLUMNS] + [
        (
            str(a.id),
            a.name,
            "yes" if a.is_active else "no",
            describe_origins(a.allowed_origins),
            a.key_hint,
        )
        for a in accounts
    ]
    widths = [max(len(row[i]) for row in rows) for i in range(len(_ACCOUNT_COLUMNS))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip() for row in rows
    )
