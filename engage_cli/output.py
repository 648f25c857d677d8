"""How the CLI prints tables and freshly issued keys (text for people, JSON for scripts)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import attrs
import click

from engage_core.accounts.model import Account

_ACCOUNT_COLUMNS = ("ID", "NAME", "ACTIVE", "ORIGINS", "KEY")


@attrs.frozen
class KeyKind:
    """What tells one kind of issued key from another in the output: field names, label and hints."""

    id_field: str
    key_field: str
    label: str
    group: str  # the command group whose `rotate-key` issues a new one
    usage: str = ""  # appended to the warning, e.g. the header the key goes in


ACCOUNT_KEY = KeyKind(id_field="account_id", key_field="api_key", label="API key", group="accounts")
PARTNER_KEY = KeyKind(
    id_field="partner_id",
    key_field="partner_key",
    label="Partner key",
    group="partners",
    usage=" Send it in X-Partner-Key.",
)


def echo_new_key(kind: KeyKind, owner_id: int, key: str, *, as_json: bool, headline: str) -> None:
    """Print a plaintext key exactly once, with the warning that it cannot be shown again.

    With `as_json`, stdout is exactly `{"<id_field>": ..., "<key_field>": "..."}` and nothing else.
    """
    if as_json:
        click.echo(json.dumps({kind.id_field: owner_id, kind.key_field: key}))
        return
    click.echo(headline)
    click.echo(f"{kind.label}: {key}")
    click.echo(
        "Store this key now: it is shown only once and cannot be retrieved later "
        f"(`engage {kind.group} rotate-key {owner_id}` issues a new one).{kind.usage}",
        err=True,
    )


def describe_origins(origins: Sequence[str]) -> str:
    """`*` when every origin is allowed, else the comma-separated whitelist."""
    return "*" if not origins or "*" in origins else ", ".join(origins)


def account_table(accounts: Sequence[Account]) -> str:
    """A plain aligned table: id, name, active, origins, key hint (never the key)."""
    return table(
        _ACCOUNT_COLUMNS,
        [
            (
                str(a.id),
                a.name,
                "yes" if a.is_active else "no",
                describe_origins(a.allowed_origins),
                a.key_hint,
            )
            for a in accounts
        ],
    )


def account_document(account: Account) -> dict[str, object]:
    """An account for `--json`: the table's fields (never the key, only its hint) and when it was made."""
    return {
        "id": account.id,
        "name": account.name,
        "is_active": account.is_active,
        "allowed_origins": list(account.allowed_origins),
        "api_key_hint": account.key_hint,
        "locale": account.locale,
        "created_at": account.created_at.isoformat(),
    }


def table(columns: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain table: each column as wide as its widest cell, two spaces between, no trailing blanks."""
    lines = [columns, *rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(columns))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip() for line in lines
    )
