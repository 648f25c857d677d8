"""What the commands acting inside one workspace share: naming a missing account clearly."""

from __future__ import annotations

import click

from engage_core.kernel.errors import NotFound
from engage_core.services import Services


def require_account(services: Services, account_id: int) -> None:
    """`Account 7 not found.` as a one-line error, before anything is read or written for it."""
    try:
        services.accounts.get(account_id)
    except NotFound as exc:
        raise click.ClickException(f"Account {account_id} not found.") from exc
