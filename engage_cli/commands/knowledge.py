"""`engage kb ...`: a workspace's knowledge base from the command line.

`engage kb list ACCOUNT_ID` lists its entries; `engage kb search ACCOUNT_ID QUERY` shows the passages
the AI agents would answer QUERY from (as `GET /api/v1/knowledge-base/search` does), best first,
and says when none of them answers a fair part of the question.
"""

from __future__ import annotations

import json

import click

from engage_cli.context import CliState, pass_state
from engage_cli.workspaces import require_account
from engage_core.kernel.pagination import PageRequest
from engage_core.knowledge.chunks import QUERY_MAX, SEARCH_DEFAULT_LIMIT, SEARCH_MAX_LIMIT, SearchResult, is_relevant
from engage_core.knowledge.model import ENTRIES, KB_STATUSES, KB_TYPES, KnowledgeBaseFilter
from engage_http.converter import unstructure_hook
from engage_http.knowledge.chunk_schemas import KnowledgeSearchResults
from engage_http.knowledge.schemas import KnowledgeBase

_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON (the API's fields) instead of text.")
_TYPE = click.option("--type", "kind", type=click.Choice(KB_TYPES), help="Only entries of this type.")


@click.group()
def kb() -> None:
    """Read and search the knowledge base of a workspace."""


@kb.command(name="list")
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@_TYPE
@click.option("--status", type=click.Choice(KB_STATUSES), help="Only entries in this status.")
@click.option("--page", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--per-page", type=click.IntRange(min=1, max=ENTRIES.maximum), default=ENTRIES.default, show_default=True)
@_JSON
@pass_state
def list_entries(
    state: CliState, account_id: int, kind: str | None, status: str | None, page: int, per_page: int, as_json: bool
) -> None:
    """List a workspace's knowledge-base entries, newest first."""
    services = state.services()
    require_account(services, account_id)
    found = services.knowledge_entries.list(
        account_id, KnowledgeBaseFilter(type=kind, status=status), PageRequest(page, per_page)
    )
    if as_json:
        render = unstructure_hook(KnowledgeBase)
        click.echo(json.dumps([render(e) for e in found.items]))
        return
    if not found.items:
        click.echo("No entries." if found.total == 0 else f"No entries on page {page} ({found.total} in all).")
        return
    for entry in found.items:
        click.echo(f"{entry.id}\t{entry.type}\t{entry.status}\t{entry.title}")
    noun = "entry" if found.total == 1 else "entries"
    click.echo(f"Page {page} of {found.last_page} ({found.total} {noun}).", err=True)


@kb.command()
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@click.argument("query", metavar="QUERY")
@_TYPE
@click.option(
    "--limit",
    type=click.IntRange(min=1, max=SEARCH_MAX_LIMIT),
    default=SEARCH_DEFAULT_LIMIT,
    show_default=True,
    help="How many passages.",
)
@_JSON
@pass_state
def search(state: CliState, account_id: int, query: str, kind: str | None, limit: int, as_json: bool) -> None:
    """Show the passages of active entries that best answer QUERY (1 to 500 characters), best first."""
    if not query.strip() or len(query) > QUERY_MAX:
        raise click.BadParameter(f"the query is 1 to {QUERY_MAX} characters", param_hint="QUERY")
    services = state.services()
    require_account(services, account_id)
    found = services.knowledge_chunks.search(account_id, query, type=kind, limit=limit)
    if as_json:
        click.echo(json.dumps(unstructure_hook(KnowledgeSearchResults)(KnowledgeSearchResults.from_domain(found))))
        return
    click.echo(describe(found))


def describe(found: SearchResult) -> str:
    """The hits as text: score, entry and heading, then the passage; and whether any is relevant."""
    if not found.hits:
        return "Nothing in the knowledge base matches."
    lines: list[str] = []
    for hit in found.hits:
        mark = "" if is_relevant(hit) else "  (weak)"
        lines.append(
            f"{hit.score:.2f}  entry {hit.knowledge_base_id} ({hit.type}): {hit.context_header or hit.title}{mark}"
        )
        lines.extend(f"      {line}" for line in hit.content.splitlines() if line.strip())
        lines.append("")
    if not found.relevant:
        lines.append("Nothing relevant: no passage answers a fair part of the question.")
    return "\n".join(lines).rstrip("\n")
