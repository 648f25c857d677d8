"""The commands of a shell block, as the docs write them: one per logical line (continued with a
trailing backslash or an open quote), `$` prompts in `console` blocks, and a comment that starts
with `{` right after a command showing that command's response (`# {"success":true,...}`).

Only what the docs use is understood: `VAR=value`, `export VAR=value ...`, and commands whose words
are split the way sh splits them, with `$VAR` and `${VAR}` expanded outside single quotes.
"""

from __future__ import annotations

import datetime as dt
import re
import shlex
from collections.abc import Mapping

import attrs


@attrs.frozen
class Command:
    text: str
    """The logical line, continuations joined, comments kept out."""
    response: str | None = None
    """The JSON a `# {...}` comment under the command shows, if any."""
    output: tuple[str, ...] = ()
    """In a `console` block, the lines printed after the `$` line."""


def commands(text: str, *, console: bool = False) -> list[Command]:
    """The commands of a block, in order."""
    found: list[Command] = []
    pending = ""
    response: list[str] = []
    output: list[str] = []

    def flush() -> None:
        nonlocal pending, response, output
        if pending.strip():
            found.append(Command(pending.strip(), "".join(response) or None, tuple(output)))
        pending, response, output = "", [], []

    for line in text.splitlines():
        stripped = line.strip()
        if pending and not _complete(pending):
            pending += "\n" + line
            continue
        if console and not stripped.startswith("$ "):
            if pending:
                output.append(line)
            continue
        if console:
            flush()
            pending = stripped[2:]
            continue
        if stripped.startswith("#"):
            comment = stripped[1:].strip()
            if pending and (_open("".join(response)) or (not response and comment.startswith("{"))):
                response.append(comment)
            continue
        if not stripped:
            continue
        if pending and pending.endswith("\\"):
            pending = pending[:-1] + " " + stripped
            continue
        flush()
        pending = line
    flush()
    return found


def _complete(text: str) -> bool:
    if text.rstrip().endswith("\\"):
        return False
    try:
        shlex.split(text, comments=True)
    except ValueError:  # an open quote: the command goes on over the next line
        return False
    return True


def _open(json_text: str) -> bool:
    """Whether a JSON text that has begun still has brackets to close (strings ignored)."""
    outside = re.sub(r'"(?:[^"\\]|\\.)*"', "", json_text)
    return outside.count("{") + outside.count("[") > outside.count("}") + outside.count("]")


_VARIABLE = re.compile(r"\$(?:\{(\w+)\}|(\w+))")
_DATE_COMMAND = re.compile(r"\$\(date \+([%\w-]+)\)")
"""`$(date +%F)`, the one command substitution the docs use (a dated backup's name)."""


def expand(text: str, env: Mapping[str, str]) -> str:
    """`text` with `$VAR`, `${VAR}` and `$(date +FORMAT)` replaced outside single quotes (an unknown
    variable fails)."""
    parts = re.split(r"('[^']*')", text)

    def value(match: re.Match[str]) -> str:
        name = match[1] or match[2]
        if name not in env:
            raise KeyError(f"the docs use ${name}, which no earlier block sets")
        return env[name]

    def substituted(part: str) -> str:
        part = _DATE_COMMAND.sub(lambda m: dt.datetime.now().strftime(m[1]), part)
        return _VARIABLE.sub(value, part)

    return "".join(part if part.startswith("'") else substituted(part) for part in parts)


def words(text: str) -> list[str]:
    """The words of a command line, split as sh does, comments dropped."""
    return shlex.split(text.replace("\\\n", " "), comments=True)


def assignments(argv: list[str]) -> dict[str, str] | None:
    """`VAR=value ...` or `export VAR=value ...` as a mapping; None for any other command."""
    items = argv[1:] if argv and argv[0] == "export" else argv
    if not items or not all(re.fullmatch(r"\w+=.*", item, re.S) for item in items):
        return None
    return dict(item.split("=", 1) for item in items)
