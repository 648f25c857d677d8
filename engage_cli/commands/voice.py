"""`engage voice ...`: the built-in voices, and a workspace's voice from the command line.

`voices` lists the catalogue (no database needed for it beyond the services); `show` prints a
workspace's settings as `GET /voice` does; `set` changes them as `PATCH /voice/settings` does; `speak`
synthesises text as `POST /voice/tts` does (minutes counted, the cache used) and prints the audio's
URL; `delete-clone` removes the cloned voice as `DELETE /voice` does.
"""

from __future__ import annotations

import json

import click

from engage_cli.context import CliState, pass_state
from engage_cli.workspaces import require_account
from engage_core.voice.catalogue import DIALECTS, VOICES
from engage_core.voice.model import VoicePatch, VoiceView
from engage_http.converter import unstructure_hook
from engage_http.voice.schemas import Speech, VoiceSettings

_JSON = click.option("--json", "as_json", is_flag=True, help="Print JSON (the API's fields) instead of text.")


@click.group()
def voice() -> None:
    """The built-in voices, and a workspace's voice settings and text to speech."""


@voice.command()
@_JSON
def voices(as_json: bool) -> None:
    """List the built-in voices (name, gender, style tags, languages, offline engine variant)."""
    if as_json:
        entries = [
            {"name": v.name, "gender": v.gender, "tags": list(v.tags), "languages": list(v.languages)} for v in VOICES
        ]
        click.echo(json.dumps(entries))
        return
    for v in VOICES:
        click.echo(f"{v.name}\t{v.gender}\t{' '.join(v.tags)}\t{','.join(v.languages)}\tespeak-ng +{v.variant}")


@voice.command()
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@_JSON
@pass_state
def show(state: CliState, account_id: int, as_json: bool) -> None:
    """Show a workspace's voice settings."""
    services = state.services()
    require_account(services, account_id)
    _print(services.voice.settings(account_id), as_json)


@voice.command(name="set")
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@click.option("--voice", "preset_voice", help="A built-in voice name (switches to preset mode and enables).")
@click.option("--language", type=click.Choice(["ar", "en"]))
@click.option("--dialect", type=click.Choice(list(DIALECTS)))
@click.option("--preset-language", help="auto, or a BCP-47 code of Arabic or English.")
@click.option("--enabled/--disabled", default=None)
@_JSON
@pass_state
def set_voice(
    state: CliState,
    account_id: int,
    preset_voice: str | None,
    language: str | None,
    dialect: str | None,
    preset_language: str | None,
    enabled: bool | None,
    as_json: bool,
) -> None:
    """Change a workspace's voice settings."""
    services = state.services()
    require_account(services, account_id)
    patch = VoicePatch(
        enabled=enabled, preset_voice=preset_voice, preset_language=preset_language, language=language, dialect=dialect
    )
    _print(services.voice.update(account_id, patch), as_json)


@voice.command()
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@click.argument("text")
@_JSON
@pass_state
def speak(state: CliState, account_id: int, text: str, as_json: bool) -> None:
    """Speak TEXT in the workspace's voice and print the audio's URL (and its length)."""
    services = state.services()
    require_account(services, account_id)
    result = services.voice.speak(account_id, text)
    if as_json:
        click.echo(json.dumps(unstructure_hook(Speech)(result)))
        return
    cached = ", from the store" if result.cached else ""
    click.echo(f"{result.audio_url}\t{result.duration_seconds:.1f} s{cached}")
    if result.notice:
        click.echo(result.notice, err=True)


@voice.command(name="delete-clone")
@click.argument("account_id", metavar="ACCOUNT_ID", type=int)
@pass_state
def delete_clone(state: CliState, account_id: int) -> None:
    """Delete a workspace's cloned voice, its recording and its audio (irreversible)."""
    services = state.services()
    require_account(services, account_id)
    services.voice.delete(account_id)
    click.echo(f"Deleted the cloned voice of workspace {account_id}.")


def _print(view: VoiceView, as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(unstructure_hook(VoiceSettings)(view)))
        return
    voice_name = view.voice_name or "(none)"
    state = "enabled" if view.enabled else "disabled"
    click.echo(
        f"{view.mode}\t{voice_name}\t{state}\t{view.language}/{view.dialect}\t"
        f"{view.voice_minutes_remaining:g} of {view.voice_minutes_limit} minutes left"
    )
