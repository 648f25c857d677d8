"""`check` mode: a command line the docs show is parsed, not run. `engage ...` against the engage
command's click tree (the command exists, every option is one of its options, the arguments fit),
`make T` against the Makefile, `python -m M --flag` against the module, `pip install 'engage-platform[x]'`
against the extras, `pytest PATH` and `uvicorn --factory M:F` against the tree."""

from __future__ import annotations

import importlib
import importlib.util
import re
import tomllib
from pathlib import Path

import click
from markdown_blocks import ROOT

from engage_cli.main import cli

EXTERNAL = frozenset({"apt-get", "createdb", "docker", "pg_dump", "pg_restore", "sqlite3"})
"""Other programs' commands: not engage's to check."""


def engage_problems(argv: list[str]) -> list[str]:
    """Why `engage ARGS` would not parse; empty when it would. For a synopsis line (`a|b|c`), one
    of its alternatives must parse."""
    found: list[str] = []
    for args in _alternatives(argv[1:]):
        problems = _parse_problems(argv, args)
        if not problems:
            return []
        found = found or problems
    return found


def _parse_problems(argv: list[str], args: list[str]) -> list[str]:
    command: click.Command = cli
    ctx = click.Context(cli, info_name="engage")
    while True:
        parser = command.make_parser(ctx)
        try:
            opts, rest, _ = (
                parser.parse_args(list(args))
                if not isinstance(command, click.Group)
                else _group_args(command, ctx, args)
            )
        except click.UsageError as exc:
            return [f"engage {' '.join(argv[1:])}: {exc.format_message()}"]
        if isinstance(command, click.Group):
            if not rest:
                return [f"engage {' '.join(argv[1:])}: no command under {ctx.command_path}"]
            sub = command.get_command(ctx, rest[0])
            if sub is None:
                return [f"engage {' '.join(argv[1:])}: {ctx.command_path} has no command {rest[0]!r}"]
            ctx = click.Context(sub, parent=ctx, info_name=rest[0])
            command, args = sub, rest[1:]
            continue
        missing = [p.name for p in command.params if p.required and p.name not in opts and not p.envvar]
        problems = [f"engage {' '.join(argv[1:])}: missing {name}" for name in missing]
        if rest:
            problems.append(f"engage {' '.join(argv[1:])}: unexpected arguments {rest}")
        return problems


def _group_args(
    group: click.Group, ctx: click.Context, args: list[str]
) -> tuple[dict[str, object], list[str], list[object]]:
    """A group's own options, then the rest (the command and its arguments)."""
    parser = group.make_parser(ctx)
    parser.allow_interspersed_args = False
    return parser.parse_args(list(args))


def _alternatives(args: list[str]) -> list[list[str]]:
    """A synopsis-style line as concrete calls: `[--opt X]` given, each `a|b` alternative in turn."""
    calls: list[list[str]] = [[]]
    for arg in args:
        arg = arg.strip("[]")
        if not arg or arg == "...":
            continue
        choices = arg.split("|") if "|" in arg and not arg.startswith(("http", "'")) else [arg]
        calls = [[*call, choice] for call in calls for choice in choices]
    return calls


def problems(argv: list[str], line: str) -> list[str]:
    """Why the command line `argv` (written `line` in the docs) would not run; empty when it would."""
    program = argv[0].rsplit("/", 1)[-1]
    if program == "engage":
        return engage_problems(argv)
    if program == "make":
        targets = set(re.findall(r"^([a-z-]+):", (ROOT / "Makefile").read_text(), re.M))
        return [
            f"make has no target {t}" for t in argv[1:] if not t.startswith("-") and "=" not in t and t not in targets
        ]
    if program in ("python", "python3") and argv[1:2] == ["-m"]:
        return _module_problems(argv[2], line)
    if program == "pip" and argv[1:2] == ["install"]:
        extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
        wanted = [e for arg in argv[2:] for e in re.findall(r"engage-platform\[([\w,]+)\]", arg)]
        return [f"no extra {x}" for group in wanted for x in group.split(",") if x not in extras]
    if program == "pytest":
        return [f"no file {a}" for a in argv[1:] if a.endswith(".py") and not (ROOT / a).exists()]
    if program == "uvicorn":
        factory = argv[argv.index("--factory") + 1]
        module, _, name = factory.partition(":")
        return [] if hasattr(importlib.import_module(module), name) else [f"no {factory}"]
    if program in EXTERNAL:
        return []
    return [f"check mode does not know the program {program!r}"]


def _module_problems(module: str, line: str) -> list[str]:
    origin = _module_file(module)
    if origin is None:
        return [f"no module {module}"]
    source = origin.read_text(encoding="utf-8")
    flags = re.findall(r"(?<![\w-])(--[a-z][\w-]*)", line.partition("#")[2] + " " + line.partition("#")[0])
    return [f"{module} has no option {flag}" for flag in flags if f'"{flag}"' not in source]


def _module_file(module: str) -> Path | None:
    """The source of `module`: a file of the repository (`bench.contacts`, run from its root as the
    docs say), else an installed module's."""
    local = ROOT.joinpath(*module.split("."))
    for candidate in (local.with_suffix(".py"), local / "__main__.py"):
        if candidate.is_file():
            return candidate
    spec = importlib.util.find_spec(module)
    return None if spec is None or spec.origin is None else Path(spec.origin)


def leaf_commands(group: click.Group = cli, prefix: tuple[str, ...] = ()) -> set[tuple[str, ...]]:
    """Every runnable command of the click tree, as its path of names."""
    found: set[tuple[str, ...]] = set()
    ctx = click.Context(group)
    for name in group.list_commands(ctx):
        sub = group.get_command(ctx, name)
        if isinstance(sub, click.Group):
            found |= leaf_commands(sub, (*prefix, name))
        elif sub is not None:
            found.add((*prefix, name))
    return found


def parameter_names(argv_tail: list[str]) -> dict[int, str]:
    """For `engage` arguments `argv_tail`: the position of each value and the name of its parameter
    (`account_id`, `booking_id`, `resource` for `--resource 3`, ...)."""
    command: click.Command = cli
    ctx = click.Context(cli, info_name="engage")
    names: dict[int, str] = {}
    index = 0
    while isinstance(command, click.Group):
        while argv_tail[index].startswith("-"):
            index += 2  # the group's own options (--database-url URL) take a value each
        sub = command.get_command(ctx, argv_tail[index])
        if sub is None:
            return names
        ctx = click.Context(sub, parent=ctx, info_name=argv_tail[index])
        command, index = sub, index + 1
    arguments = [p for p in command.params if isinstance(p, click.Argument)]
    options = {opt: p for p in command.params if isinstance(p, click.Option) for opt in p.opts}
    position = 0
    while index < len(argv_tail):
        arg = argv_tail[index]
        option = options.get(arg)
        if option is not None:
            if not option.is_flag and option.name:
                names[index + 1] = option.name
                index += 1
        elif not arg.startswith("-") and position < len(arguments):
            name = arguments[position].name
            if name:
                names[index] = name
            if arguments[position].nargs == 1:
                position += 1
        index += 1
    return names
