"""`engage voice ...` on a temporary SQLite database with the real espeak-ng: the catalogue, choosing
a voice, speaking (the audio kept beside the database, served again from it), and deleting the clone."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from voice_notes import require_espeak

RunCli = Callable[..., Result]
NewAccount = Callable[..., dict[str, Any]]


@pytest.fixture
def account_id(create_account: NewAccount) -> int:
    created: int = create_account("Acme")["account_id"]
    return created


def run_json(run_cli: RunCli, *args: str) -> Any:
    result = run_cli("voice", *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_voices_lists_the_catalogue(run_cli: RunCli) -> None:
    """30 voices, 14 female and 16 male."""
    genders = [v["gender"] for v in run_json(run_cli, "voices")]
    assert (genders.count("female"), genders.count("male")) == (14, 16)


def test_set_chooses_a_preset_voice(run_cli: RunCli, account_id: int) -> None:
    """--voice switches to preset mode and enables synthesis."""
    settings = run_json(run_cli, "set", str(account_id), "--voice", "Omar", "--dialect", "ksa")
    assert (settings["preset_voice"], settings["enabled"], settings["dialect"]) == ("Omar", True, "ksa")


def test_speak_stores_the_audio_beside_the_database(run_cli: RunCli, account_id: int, tmp_path: Path) -> None:
    """The m4a is kept in the media directory; the same text again comes from the store."""
    require_espeak()
    run_json(run_cli, "set", str(account_id), "--voice", "Layla")
    first = run_json(run_cli, "speak", str(account_id), "Welcome to our shop.")
    again = run_json(run_cli, "speak", str(account_id), "Welcome to our shop.")
    stored = list((tmp_path / "engage.db.media").rglob("*.m4a"))
    assert (len(stored), stored[0].read_bytes()[4:8], again["cached"], first["cached"]) == (1, b"ftyp", True, False)


def test_delete_clone_answers_for_a_workspace_without_one(run_cli: RunCli, account_id: int) -> None:
    """Deleting when there is no clone is not an error."""
    result = run_cli("voice", "delete-clone", str(account_id))
    assert result.exit_code == 0 and "Deleted" in result.output
