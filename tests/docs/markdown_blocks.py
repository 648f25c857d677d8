"""The fenced blocks of README.md and docs/*.md, each with the `docs-test` marker that says how it is
checked.

A marker is an HTML comment on the line right above the opening fence, invisible when rendered:

    <!-- docs-test: MODE ARGS -->

The modes are listed in `MODES`; `tests/docs/README.md` explains each one.
"""

from __future__ import annotations

import re
from pathlib import Path

import attrs

ROOT = Path(__file__).parents[2]

MODES = {
    "run": "execute the block: shell commands (curl, engage, variables) or Python",
    "check": "parse each command without running it (engage against its click tree, make targets, modules, files);"
    " the rest of the marker says why it cannot run",
    "response": "JSON: the shape of the response to the Nth request of the run block above (default: the last)",
    "response-of": "JSON: the shape of the response to a request the marker makes (`response-of POST /path {body}`)",
    "data-of": "JSON: the shape of `data` (a list: its first item) of a request the marker makes (`data-of GET /path`)",
    "request": "JSON: a request body, sent by the marker's method and path (`request POST /path`); must be accepted",
    "payload": "JSON: the `data` of an event, compared with what the service emits (test_docs_event_catalogue.py)",
    "file": "a file the next blocks use, written to the document's working directory (`file products.csv`)",
    "skip": "not executed; the rest of the marker says why",
}

_MARKER = re.compile(r"^\s*<!--\s*docs-test:\s*(?P<mode>[a-z-]+)\s*(?P<args>.*?)\s*-->\s*$")
_FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,})(?P<lang>[\w+-]*)\s*$")


@attrs.frozen
class Marker:
    mode: str
    args: str


@attrs.frozen
class Block:
    """One fenced block: where it is, its info string, its text (dedented) and its marker, if any."""

    document: Path
    line: int
    lang: str
    text: str
    marker: Marker | None

    @property
    def where(self) -> str:
        return f"{self.document.relative_to(ROOT)}:{self.line}"


def documents() -> list[Path]:
    """README.md and every page of docs/ (not docs/reference/, whose pages are generated)."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def blocks(document: Path) -> list[Block]:
    """The fenced blocks of `document`, in order."""
    lines = document.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    index = 0
    while index < len(lines):
        opening = _FENCE.match(lines[index])
        if opening is None:
            index += 1
            continue
        indent, fence = len(opening["indent"]), opening["fence"]
        body: list[str] = []
        end = index + 1
        while end < len(lines) and lines[end].strip() != fence:
            line = lines[end]
            body.append(line[indent:] if line[:indent].isspace() else line.lstrip() if indent else line)
            end += 1
        previous = lines[index - 1] if index > 0 else ""
        marker = _MARKER.match(previous)
        found.append(
            Block(
                document=document,
                line=index + 1,
                lang=opening["lang"],
                text="\n".join(body) + "\n",
                marker=Marker(marker["mode"], marker["args"]) if marker else None,
            )
        )
        index = end + 1
    return found
