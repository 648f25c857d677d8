"""`engage agents ...`: the AI agents of a workspace, its default agent, and assigning agents to contacts.

    engage agents list ACCOUNT_ID [--json]
    engage agents show ACCOUNT_ID AGENT_ID [--json]
    engage agents create ACCOUNT_ID --name NAME (--system-prompt TEXT | --system-prompt-file FILE) [...] [--json]
    engage agents update ACCOUNT_ID AGENT_ID [--name NAME] [--system-prompt TEXT] [...] [--json]
    engage agents delete ACCOUNT_ID AGENT_ID
    engage agents set-default ACCOUNT_ID AGENT_ID [--json]
    engage agents assign ACCOUNT_ID AGENT_ID CONTACT_ID... [--json]

The same rules as the API's (`docs/agents.md`): the default agent is active and cannot be deleted,
making an agent the default clears the previous one, and new contacts get the default. `--json`
prints what the API's `data` would hold. The operator's commands are not gated by the plan's
`ai_agents` feature (the API is).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import IO, Any

import click

from engage_cli.context import CliState, pass_state
from engage_cli.workspaces import require_account
from engage_core.agents import model as domain
from engage_core.agents.model import AgentInput, AgentPatch
from engage_core.kernel.unset import UNSET
from engage_core.services import Services
from engage_http.agents.schemas import AiAgent, AiAgentAssignment
from engage_http.converter import unstructure_hook

_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON (the API's `data`) instead of text.")
_ACCOUNT = click.argument("account_id", metavar="ACCOUNT_ID", type=int)
_AGENT = click.argument("agent_id", metavar="AGENT_ID", type=int)


def _prompt_options(command: Any) -> Any:
    """The optional prompts and the guidelines, shared by `create` and `update`."""
    options = [
        click.option("--instruction-prompt", default=None, help="Appended after the system prompt ('' removes it)."),
        click.option("--personality-prompt", default=None, help="Tone and personality ('' removes it)."),
        click.option("--booking-instructions", default=None, help="For the booking step ('' removes them)."),
        click.option("--memory-instructions", default=None, help="For the memory step ('' removes them)."),
        click.option(
            "--guidelines",
            default=None,
            metavar="JSON",
            help='Response guidelines, a JSON object, e.g. \'{"language": "en", "max_reply_chars": 600}\'.',
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


@click.group()
def agents() -> None:
    """AI agents of a workspace: prompts, the default agent, and assigning agents to contacts."""


def _services(state: CliState, account_id: int) -> Services:
    services = state.services()
    require_account(services, account_id)
    return services


def _guidelines(raw: str | None) -> dict[str, Any] | None:
    if raw is None:
        return None
    try:
        value = json.loads(raw)
    except ValueError as exc:
        raise click.BadParameter(f"not valid JSON ({exc})", param_hint="--guidelines") from exc
    if not isinstance(value, dict):
        raise click.BadParameter("must be a JSON object", param_hint="--guidelines")
    return value


def _system_prompt(text: str | None, file: IO[str] | None) -> str | None:
    if text is not None and file is not None:
        raise click.UsageError("Give --system-prompt or --system-prompt-file, not both.")
    return file.read() if file is not None else text


def _show(agent: domain.AiAgent, as_json: bool, verb: str) -> None:
    if as_json:
        click.echo(json.dumps(unstructure_hook(AiAgent)(agent)))
        return
    flags = ", ".join(word for word, on in (("default", agent.is_default), ("inactive", not agent.is_active)) if on)
    click.echo(f"{verb} AI agent {agent.id} ({agent.name}{', ' + flags if flags else ''}).")


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A plain aligned table, one line per row."""
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [headers, *rows]
    )


def describe(agent: domain.AiAgent) -> str:
    """Every field of the agent, one per line, the prompts in full."""
    lines = [
        f"AI agent {agent.id}: {agent.name}",
        f"Active: {'yes' if agent.is_active else 'no'}  Default: {'yes' if agent.is_default else 'no'}",
        f"Updated {agent.updated_at:%Y-%m-%d %H:%M} UTC",
        "",
        "System prompt:",
        agent.system_prompt,
    ]
    for field in domain.PROMPTS:
        value = getattr(agent, field)
        if value is not None:
            lines += ["", field.replace("_", " ").capitalize() + ":", value]
    if agent.response_guidelines:
        lines += ["", "Response guidelines:", json.dumps(dict(agent.response_guidelines), ensure_ascii=False)]
    return "\n".join(lines)


@agents.command(name="list")
@_ACCOUNT
@_JSON
@pass_state
def list_agents(state: CliState, account_id: int, as_json: bool) -> None:
    """List the agents, most recently updated first."""
    found = _services(state, account_id).ai_agents.list(account_id)
    if as_json:
        render = unstructure_hook(AiAgent)
        click.echo(json.dumps([render(agent) for agent in found]))
        return
    if not found:
        click.echo(
            f"No AI agents yet. Create one with: engage agents create {account_id} --name NAME --system-prompt TEXT"
        )
        return
    rows = [
        (
            str(a.id),
            a.name,
            "yes" if a.is_active else "no",
            "yes" if a.is_default else "no",
            f"{a.updated_at:%Y-%m-%d %H:%M}",
        )
        for a in found
    ]
    click.echo(table(("ID", "NAME", "ACTIVE", "DEFAULT", "UPDATED"), rows))


@agents.command()
@_ACCOUNT
@_AGENT
@_JSON
@pass_state
def show(state: CliState, account_id: int, agent_id: int, as_json: bool) -> None:
    """Show an agent with its prompts and guidelines."""
    agent = _services(state, account_id).ai_agents.get(account_id, agent_id)
    if as_json:
        click.echo(json.dumps(unstructure_hook(AiAgent)(agent)))
        return
    click.echo(describe(agent))


@agents.command()
@_ACCOUNT
@click.option("--name", required=True, help="At most 255 characters.")
@click.option("--system-prompt", default=None, help="The core instructions, at most 20,000 characters.")
@click.option("--system-prompt-file", type=click.File("r", encoding="utf-8"), default=None, help="Read it from a file.")
@_prompt_options
@click.option("--inactive", is_flag=True, help="Create it deactivated.")
@click.option("--default", "is_default", is_flag=True, help="Make it the default agent (assigned to new contacts).")
@_JSON
@pass_state
def create(
    state: CliState,
    account_id: int,
    name: str,
    system_prompt: str | None,
    system_prompt_file: IO[str] | None,
    instruction_prompt: str | None,
    personality_prompt: str | None,
    booking_instructions: str | None,
    memory_instructions: str | None,
    guidelines: str | None,
    inactive: bool,
    is_default: bool,
    as_json: bool,
) -> None:
    """Create an agent; with --default it becomes the default and the previous default loses the flag."""
    prompt = _system_prompt(system_prompt, system_prompt_file)
    if prompt is None:
        raise click.UsageError("Give the system prompt: --system-prompt TEXT or --system-prompt-file FILE.")
    data = AgentInput(
        name=name,
        system_prompt=prompt,
        instruction_prompt=instruction_prompt,
        personality_prompt=personality_prompt,
        booking_agent_instructions=booking_instructions,
        memory_agent_instructions=memory_instructions,
        response_guidelines=_guidelines(guidelines),
        is_active=not inactive,
        is_default=is_default,
    )
    _show(_services(state, account_id).ai_agents.create(account_id, data), as_json, "Created")


@agents.command()
@_ACCOUNT
@_AGENT
@click.option("--name", default=None, help="A new name.")
@click.option("--system-prompt", default=None, help="A new system prompt.")
@click.option("--system-prompt-file", type=click.File("r", encoding="utf-8"), default=None, help="Read it from a file.")
@_prompt_options
@click.option("--active/--inactive", "is_active", default=None, help="Activate or deactivate (not the default).")
@click.option("--default/--no-default", "is_default", default=None, help="Make it the default, or clear the flag.")
@_JSON
@pass_state
def update(
    state: CliState,
    account_id: int,
    agent_id: int,
    name: str | None,
    system_prompt: str | None,
    system_prompt_file: IO[str] | None,
    instruction_prompt: str | None,
    personality_prompt: str | None,
    booking_instructions: str | None,
    memory_instructions: str | None,
    guidelines: str | None,
    is_active: bool | None,
    is_default: bool | None,
    as_json: bool,
) -> None:
    """Change an agent; options left out keep their value, '' removes an optional prompt, and
    --guidelines replaces the whole object."""
    prompt = _system_prompt(system_prompt, system_prompt_file)
    patch = AgentPatch(
        name=UNSET if name is None else name,
        system_prompt=UNSET if prompt is None else prompt,
        instruction_prompt=UNSET if instruction_prompt is None else instruction_prompt,
        personality_prompt=UNSET if personality_prompt is None else personality_prompt,
        booking_agent_instructions=UNSET if booking_instructions is None else booking_instructions,
        memory_agent_instructions=UNSET if memory_instructions is None else memory_instructions,
        response_guidelines=UNSET if guidelines is None else _guidelines(guidelines),
        is_active=UNSET if is_active is None else is_active,
        is_default=UNSET if is_default is None else is_default,
    )
    _show(_services(state, account_id).ai_agents.update(account_id, agent_id, patch), as_json, "Updated")


@agents.command()
@_ACCOUNT
@_AGENT
@pass_state
def delete(state: CliState, account_id: int, agent_id: int) -> None:
    """Delete an agent (not the default); its contacts are unassigned."""
    _services(state, account_id).ai_agents.delete(account_id, agent_id)
    click.echo(f"Deleted AI agent {agent_id}; its contacts have no agent now.")


@agents.command(name="set-default")
@_ACCOUNT
@_AGENT
@_JSON
@pass_state
def set_default(state: CliState, account_id: int, agent_id: int, as_json: bool) -> None:
    """Make an agent the default (and active); the previous default loses the flag."""
    _show(_services(state, account_id).ai_agents.set_default(account_id, agent_id), as_json, "Default is now")


@agents.command()
@_ACCOUNT
@_AGENT
@click.argument("contact_ids", metavar="CONTACT_ID...", type=int, nargs=-1, required=True)
@_JSON
@pass_state
def assign(state: CliState, account_id: int, agent_id: int, contact_ids: tuple[int, ...], as_json: bool) -> None:
    """Assign an agent to up to 500 contacts of the workspace (other ids are ignored)."""
    assigned = _services(state, account_id).ai_agents.assign(account_id, agent_id, contact_ids)
    if as_json:
        click.echo(json.dumps(unstructure_hook(AiAgentAssignment)(assigned)))
        return
    click.echo(assigned.message)
