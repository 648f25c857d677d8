"""Runs the blocks of one document, in order, against a served engage: the state they share (the
workspace, the variables the blocks set, the ids, the responses of the last run block, the files)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import command_check
import curl
import dates
import doc_json
import httpx
import shell
from account_fixtures import AccountFixtures
from click.testing import CliRunner
from ids import KINDS, IdMap, creations
from markdown_blocks import ROOT, Block

from engage_cli.main import cli

DOCS_BASE = "http://127.0.0.1:8000"
"""The server address the docs show; the harness's server stands in for it."""

PLACEHOLDER_HOSTS = ("https://engage.example.com",)

CLI_CREATIONS: dict[tuple[str, ...], str] = {
    ("accounts", "create"): "account",
    ("partners", "create"): "partner",
    ("departments", "create"): "department",
    ("bookings", "types", "create"): "booking_type",
    ("bookings", "resources", "create"): "resource",
    ("agents", "create"): "agent",
}
"""The engage commands that create one thing, and its kind: the page's next one is the id they print."""

CLI_LISTINGS: dict[tuple[str, ...], str] = {("departments", "list"): "department"}
"""Listings that may create what they list: a workspace's first department, `General`."""

_PRINTED_ID = re.compile(r'"(?:id|account_id|partner_id)": (\d+)|^Created [A-Za-z ]+? (\d+)\b', re.M)
_LISTED_ID = re.compile(r'"id": (\d+)|^(\d+)\s', re.M)
_TICKET_REFERENCE = re.compile(r"TKT-(\d+)", re.I)


@attrs.frozen
class Served:
    """A running `engage serve`: where it answers and the database it uses."""

    base_url: str
    database_url: str


@attrs.define
class Workspace:
    api_key: str
    account_id: int
    partner_key: str


@attrs.define
class Response:
    status: int
    body: Any


class BlockFailed(AssertionError):
    pass


class DocumentRun:
    """The state of one document's run; `run(block)` checks one block."""

    def __init__(
        self,
        served: Served,
        workspace: Workspace,
        cwd: Path,
        *,
        literal_ids: bool = False,
        postgres: Callable[[], str] | None = None,
    ) -> None:
        self.served = served
        self.workspace = workspace
        self.cwd = cwd
        self.client = httpx.Client(timeout=30)
        self.ids = IdMap(self._make) if not literal_ids else None
        self.literal_ids = literal_ids
        self.postgres = postgres
        self.responses: list[Response] = []
        self.env: dict[str, str] = {
            "API": f"{served.base_url}/api/v1",
            "KEY": workspace.api_key,
            "ENGAGE_API_KEY": workspace.api_key,
            "ENGAGE_URL": served.base_url,
            "PARTNER_KEY": workspace.partner_key,
            "ENGAGE_DATABASE_URL": served.database_url,
        }
        self._fixtures = 0
        self._account_fixtures = AccountFixtures(served.database_url)
        self._fixture_account: int | None = None
        """While an engage command naming a workspace runs, the workspace its fixtures belong to."""
        self.last_output = ""

    def close(self) -> None:
        self.client.close()

    # -- blocks ------------------------------------------------------------------------------------

    def run(self, block: Block) -> None:
        assert block.marker is not None
        mode, args = block.marker.mode, block.marker.args
        if mode in ("skip", "payload"):  # payloads: test_docs_event_catalogue.py drives the services
            return
        if mode == "file":
            (self.cwd / args).write_text(dates.shift(block.text))
        elif mode == "run" and block.lang == "python":
            self._run_python(block, args)
        elif mode == "run":
            self.responses = []
            for command in shell.commands(block.text, console=block.lang == "console"):
                self._run_command(command)
        elif mode == "check" and block.lang == "python":
            compile(block.text, block.where, "exec")
        elif mode == "check":
            for command in shell.commands(block.text, console=block.lang == "console"):
                argv = shell.words(command.text)
                while len(argv) > 1 and shell.assignments(argv[:1]) is not None:
                    argv = argv[1:]  # VAR=value before a command: its environment
                if shell.assignments(argv) is None:
                    problems = command_check.problems(argv, command.text)
                    if problems:
                        raise BlockFailed("; ".join(problems))
        elif mode == "response":
            if not self.responses:
                raise BlockFailed("`response` needs a run block with a request above it")
            index = int(args) - 1 if args else -1
            self._compare(block.text, self.responses[index].body)
        elif mode in ("response-of", "data-of", "request"):
            response = Response(0, None)
            for step in args.split(" then "):  # earlier steps set up what the last one reads
                method, path, body = ([*step.split(None, 2), ""])[:3]
                body = block.text if mode == "request" else body
                response = self._request(method, f"{self.served.base_url}{path}", {}, body or None)
                if mode == "request" or step is not args.split(" then ")[-1]:
                    self._expect_success(response, f"{method} {path}")
            if mode == "request":
                self.responses = [response]
            elif mode == "data-of":
                data = response.body["data"]
                self._compare(block.text, data[0] if isinstance(data, list) else data)
            else:
                self._compare(block.text, response.body)
        else:
            raise BlockFailed(f"unknown docs-test mode {mode!r}")

    def _compare(self, text: str, actual: Any) -> None:
        differences = doc_json.differences(doc_json.parse(text), actual)
        if differences:
            raise BlockFailed("the JSON differs from the response:\n  " + "\n  ".join(differences))

    # -- commands ----------------------------------------------------------------------------------

    def _run_command(self, command: shell.Command) -> None:
        text = self._substitute(command.text)
        argv = shell.words(shell.expand(text, self.env))
        assigned = shell.assignments(argv)
        if assigned is not None:
            self.env.update(assigned)
            return
        program = argv[0].rsplit("/", 1)[-1]
        if program == "curl":
            request = curl.parse(argv, self.cwd)
            headers = {**request.headers}
            response = self._request(request.method, request.url, headers, request.body, request.form)
            self._expect_success(response, command.text)
            self.responses.append(response)
            if command.response is not None:
                self._compare(command.response, response.body)
        elif program == "engage":
            self._engage(argv[1:])
            if command.output:
                self._compare_output(command.output, self.last_output)
        else:
            raise BlockFailed(f"run mode cannot run {program!r}: mark the block `check` or `skip`")

    def _substitute(self, text: str) -> str:
        text = dates.shift(text)
        text = text.replace("eng_...", self.workspace.api_key).replace("enp_...", self.workspace.partner_key)
        for host in (DOCS_BASE, *PLACEHOLDER_HOSTS):
            text = text.replace(host, self.served.base_url)
        return text

    def _request(
        self, method: str, url: str, headers: dict[str, str], body: str | None, form: tuple[tuple[str, Any], ...] = ()
    ) -> Response:
        if self.ids is not None:
            url = self.ids.rewrite(url)
            body = self.ids.rewrite(body) if body is not None else None
        body = dates.shift(body) if body is not None else None
        headers = {"X-Api-Key": self.workspace.api_key, "Content-Type": "application/json", **headers}
        if "/partner/" in url:
            headers.pop("X-Api-Key")
            headers.setdefault("X-Partner-Key", self.workspace.partner_key)
        if form:
            headers.pop("Content-Type")
        sent = curl.send(self.client, curl.Request(method, url, headers, body, form))
        parsed = (
            sent.json()
            if sent.content and sent.headers.get("content-type", "").startswith("application/json")
            else None
        )
        response = Response(sent.status_code, parsed)
        if self.ids is not None:
            path = httpx.URL(url).path.removeprefix("/api/v1")
            for kind, real_id in creations(method, path, sent.status_code, parsed):
                self.ids.created(kind, real_id)
        return response

    def _expect_success(self, response: Response, what: str) -> None:
        if response.status >= 400:
            raise BlockFailed(f"{what}\n  answered {response.status}: {json.dumps(response.body)[:500]}")

    def _engage(self, args: list[str]) -> str:
        if self.ids is not None:
            try:
                args = self._cli_ids(args)
            finally:
                self._fixture_account = None
        with contextlib.chdir(self.cwd):  # the command's relative paths are the document's files
            result = CliRunner().invoke(
                cli,
                ["--database-url", self.served.database_url, *args],
                env={"ENGAGE_URL": self.served.base_url, "ENGAGE_API_KEY": self.workspace.api_key},
                catch_exceptions=False,
            )
        self.last_output = result.output
        if result.exit_code != 0:
            raise BlockFailed(f"engage {' '.join(args)}\n  exited {result.exit_code}: {result.output}")
        if self.ids is not None:
            self._record(args, result.stdout)
        return result.stdout

    def _record(self, args: list[str], output: str) -> None:
        """The ids a command printed of what it created (or, for a listing, of what it shows)."""
        assert self.ids is not None
        words = tuple(a for a in args if not a.startswith("-"))
        for path, kind in CLI_CREATIONS.items():
            if words[: len(path)] == path:
                found = _PRINTED_ID.search(output)
                assert found is not None, output
                self.ids.created(kind, int(found[1] or found[2]))
        for path, kind in CLI_LISTINGS.items():
            if words[: len(path)] == path:
                for found in _LISTED_ID.finditer(output):
                    self.ids.seen(kind, int(found[1] or found[2]))

    def _cli_ids(self, args: list[str]) -> list[str]:
        """The command's id parameters (by name: `account_id`, `booking_id`, `--resource`...) rewritten."""
        assert self.ids is not None
        path = [a for a in args if not a.startswith("-")][:3]
        names = command_check.parameter_names(args)
        rewritten = list(args)
        # The workspace first: the fixtures the other parameters name are made in it.
        for index, name in sorted(names.items(), key=lambda item: item[1] != "account_id"):
            kind = _kind_of(name, path)
            if kind is not None and rewritten[index].isdigit():
                rewritten[index] = str(self.ids.real(kind, int(rewritten[index])))
            if name == "account_id" and rewritten[index].isdigit():
                self._fixture_account = int(rewritten[index])
            reference = _TICKET_REFERENCE.fullmatch(rewritten[index])
            if name == "reference" and reference is not None:
                # References count a workspace's tickets: TKT-000003 is its third.
                account = self._fixture_account or self.workspace.account_id
                self._account_fixtures.tickets_up_to(account, int(reference[1]))
        return rewritten

    def _compare_output(self, expected: tuple[str, ...], actual: str) -> None:
        def shape(line: str) -> str:
            return re.sub(r"\d+", "N", line.strip())

        wanted = [shape(line) for line in expected if line.strip()]
        got = [shape(line) for line in actual.splitlines() if line.strip()]
        if wanted != got[: len(wanted)] and wanted != got:
            raise BlockFailed(f"the output differs:\n  docs: {wanted}\n  got:  {got}")

    # -- python ------------------------------------------------------------------------------------

    def _run_python(self, block: Block, args: str) -> None:
        source = block.text
        env = {k: v for k, v in os.environ.items() if not k.startswith("ENGAGE_")}
        env |= {"PYTHONPATH": str(ROOT), "ENGAGE_DATABASE_URL": f"sqlite:///{self.cwd / 'snippet.db'}"}
        if args == "postgres":
            if self.postgres is None:
                return  # no PostgreSQL server to run it on (ENGAGE_TEST_POSTGRES_URL unset)
            url = self.postgres()
            source = re.sub(r"postgresql://[\w:@./-]+", url, source)
            env["ENGAGE_SECRET_KEY"] = "a-docs-test-secret-key"
        script = self.cwd / f"snippet_{block.line}.py"
        script.write_text(source)
        done = subprocess.run(
            [sys.executable, str(script)], cwd=self.cwd, env=env, capture_output=True, text=True, timeout=120
        )
        if done.returncode != 0:
            raise BlockFailed(f"the Python block failed:\n{done.stderr[-2000:]}")

    # -- fixtures ----------------------------------------------------------------------------------

    def _make(self, kind: str) -> int:
        """A new `kind` in the document's workspace, for an id no example created."""
        account = self._fixture_account
        if account is not None:
            made = self._account_fixtures.make(kind, account)
            if made is not None:
                return made
            if account != self.workspace.account_id:
                raise BlockFailed(f"no fixture for a {kind} in account {account}: let an example create it first")
        self._fixtures += 1
        n = self._fixtures
        base = f"{self.served.base_url}"

        def post(path: str, body: dict[str, Any]) -> Any:
            response = self._request("POST", base + path, {}, json.dumps(body))
            self._expect_success(response, f"fixture {kind}: POST {path}")
            return response.body["data"]

        if kind == "account":
            return self.workspace.account_id
        if kind == "contact":
            return int(
                post(
                    "/api/v1/contacts",
                    {"name": f"Fixture {n}", "type": "whatsapp", "phone": f"+4420794601{n:02d}", "tags": ["VIP"]},
                )["id"]
            )
        if kind == "booking_type":
            return int(post("/api/v1/bookings/types", {"name": f"Consultation {n}", "duration_minutes": 45})["id"])
        if kind == "resource":
            return int(post("/api/v1/bookings/resources", {"name": f"Room {n}", "type": "room"})["id"])
        if kind in ("product", "knowledge_base"):
            created = post(
                "/api/v1/knowledge-base/product-catalog",
                {
                    "title": f"Fixture {n}",
                    "products": [{"product_name": f"Kettle {n}", "price": 30, "stock_quantity": 100}],
                },
            )
            return int(created["products"][0]["id"] if kind == "product" else created["knowledge_base"]["id"])
        if kind == "tag":
            return int(post("/api/v1/tags", {"title": f"Fixture {n}"})["id"])
        if kind == "ticket":
            return int(post("/api/v1/tickets", {"subject": f"Fixture {n}", "body": "A fixture ticket."})["id"])
        if kind == "member":
            return int(
                post(
                    "/api/v1/team",
                    {
                        "name": f"Fixture {n}",
                        "email": f"fixture{n}@example.com",
                        "role": "agent",
                        "password": "correct horse",
                    },
                )["id"]
            )
        if kind == "segment":
            return int(post("/api/v1/contacts/segments", {"name": f"Fixture {n}"})["id"])
        if kind == "list":
            return int(post("/api/v1/contacts/lists", {"name": f"Fixture {n}"})["id"])
        if kind == "webhook":
            return int(post("/api/v1/webhooks", {"name": f"Fixture {n}", "url": "https://127.0.0.1:9/hook"})["id"])
        if kind == "agent":
            return int(post("/api/v1/ai-agents", {"name": f"Fixture {n}", "system_prompt": "A fixture agent."})["id"])
        raise BlockFailed(f"no fixture for a {kind}: let an example create it first")


def _kind_of(parameter: str, path: list[str]) -> str | None:
    parameter = parameter.removesuffix("s") if parameter.endswith("_ids") else parameter  # CONTACT_ID...
    if parameter == "id":
        return {"accounts": "account", "partners": "partner"}.get(path[0] if path else "")
    for kind in KINDS.values():
        if parameter in kind.keys or parameter == f"{kind.name}_id":
            return kind.name
    return None
