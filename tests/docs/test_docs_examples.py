"""Every fenced block of README.md and docs/*.md is checked as its `docs-test` marker says, so the
docs fail the build when they drift from the code. See tests/docs/README.md for the markers."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from command_check import leaf_commands
from markdown_blocks import MODES, ROOT, Block, blocks, documents
from runner import BlockFailed, DocumentRun, Served, Workspace

PAGES = [page for page in documents() if page.name != "README.md"]

UNRUN = ("skip", "check")
"""Modes that do not run a block: the marker must say why it cannot run."""


def _ids(page: Path) -> str:
    return str(page.relative_to(ROOT))


@pytest.mark.parametrize("page", documents(), ids=_ids)
def test_every_block_says_how_it_is_checked(page: Path) -> None:
    """Each fenced block has a marker with a known mode, and every skip and check gives its reason."""
    problems = [
        f"{block.where}: no `<!-- docs-test: MODE -->` marker above the block"
        if block.marker is None
        else f"{block.where}: unknown mode {block.marker.mode!r}"
        if block.marker.mode not in MODES
        else f"{block.where}: a {block.marker.mode} needs its reason"
        for block in blocks(page)
        if block.marker is None
        or block.marker.mode not in MODES
        or (block.marker.mode in UNRUN and not block.marker.args)
    ]
    assert not problems, "\n".join(problems)


def _run_all(run: DocumentRun, page: Path) -> None:
    failures: list[str] = []
    for block in blocks(page):
        if block.marker is None:
            continue
        try:
            run.run(block)
        except (BlockFailed, KeyError, ValueError) as exc:
            failures.append(f"{block.where} ({block.marker.mode}): {exc}")
    assert not failures, "\n\n".join(failures)


def test_readme_tour_runs_on_a_fresh_database(readme_server: tuple[Served, str], tmp_path: Path) -> None:
    """The README's commands and responses hold against `engage serve --demo` on a new database."""
    served, key = readme_server
    run = DocumentRun(served, Workspace(key, 1, ""), tmp_path, literal_ids=True)
    try:
        _run_all(run, ROOT / "README.md")
    finally:
        run.close()


@pytest.mark.parametrize("page", PAGES, ids=_ids)
def test_page_examples_run(
    page: Path,
    make_workspace: Callable[[str], Workspace],
    docs_server: Served,
    postgres_database: Callable[[], str] | None,
    tmp_path: Path,
) -> None:
    """The page's commands run, its JSON matches the responses, its request bodies are accepted."""
    run = DocumentRun(docs_server, make_workspace(page.stem), tmp_path, postgres=postgres_database)
    try:
        _run_all(run, page)
    finally:
        run.close()


def test_blocks_are_found_in_list_items() -> None:
    """A fence indented under a list item is still a block (operations.md's readiness body)."""
    found: list[Block] = blocks(ROOT / "docs" / "operations.md")
    assert any(block.lang == "json" and "secret_key" in block.text for block in found)


def _synopsis() -> Block:
    return next(
        b for b in blocks(ROOT / "docs" / "operations.md") if b.text.startswith("engage [--database-url URL] serve")
    )


def test_the_command_synopsis_names_every_engage_command() -> None:
    """operations.md's synopsis has a line for each command of the click tree, and none that is not one."""
    listed: set[tuple[str, ...]] = set()
    for line in _synopsis().text.splitlines():
        words = re.sub(r"\[[^\]]*\]", " ", line).split()[1:]  # optional parts dropped
        path: list[str] = []
        for word in words:
            if not re.fullmatch(r"[a-z][a-z|-]*", word):
                break
            path.append(word)
        listed |= set(itertools.product(*(part.split("|") for part in path)))
    commands = leaf_commands()
    assert listed >= commands, f"missing from the synopsis: {sorted(commands - listed)}"
    assert {p for p in listed if any(p == c[: len(p)] for c in commands)} >= listed, sorted(listed - commands)
