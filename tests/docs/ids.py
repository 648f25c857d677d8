"""Ids in the docs, mapped to the ids of the shared test server.

Each document has ids of its own, as a fresh workspace running its examples in order would get them:
the Nth contact the document creates is contact N. A literal id that no earlier example created is
a fixture the harness creates when a command first names it (`KINDS[kind].make`). Ids are rewritten
where a kind names them: in a path after the kind's collection (`/contacts/7/notes`) or another
path of it (`/conversations/7/take-over`), in a `<kind>_id` JSON key or query parameter, in the
integers of a `<kind>_ids` JSON array (`"contact_ids": [1, 2]`), and in the engage command's
parameters of that name.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import attrs


@attrs.frozen
class Kind:
    name: str
    collection: str
    """The path under /api/v1 whose POST creates one, and under which `/<id>` names one."""
    keys: tuple[str, ...]
    """JSON keys, query parameters and engage parameters that hold its id."""
    paths: tuple[str, ...] = ()
    """Other path segments after which `/<id>` names one (`/conversations/7/take-over` names contact 7)."""


KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in (
        Kind("contact", "/contacts", ("contact_id",), ("conversations",)),
        Kind("tag", "/tags", ("tag_id",)),
        Kind("list", "/contacts/lists", ("list_id",)),
        Kind("segment", "/contacts/segments", ("segment_id",)),
        Kind("knowledge_base", "/knowledge-base", ("knowledge_base_id",)),
        Kind("product", "/products", ("product_id",)),
        Kind("order", "/orders", ("order_id",)),
        Kind("booking", "/bookings", ("booking_id",)),
        Kind("booking_type", "/bookings/types", ("booking_type_id", "type_id")),
        Kind("resource", "/bookings/resources", ("resource_id", "resource")),
        Kind("ticket", "/tickets", ()),
        Kind("member", "/team", ("member_id", "team_member_id")),
        Kind("webhook", "/webhooks", ("webhook_id",)),
        Kind("message", "/sandbox/messages", ("message_id",)),
        Kind("department", "/tickets/departments", ("department_id",)),
        Kind("agent", "/ai-agents", ("agent_id",)),
        Kind("client", "/partner/clients", ("client_id",)),
        Kind("account", "", ("account_id",)),
        Kind("partner", "", ("partner_id",)),
    )
}

Make = Callable[[str], int]
"""Creates a fixture of a kind in the document's workspace; its real id."""


class IdMap:
    """One document's ids: literal → real, per kind, and the real ids created so far."""

    def __init__(self, make: Make) -> None:
        self._make = make
        self._created: dict[str, list[int]] = {}
        self._bound: dict[tuple[str, int], int] = {}

    def created(self, kind: str, real_id: int) -> None:
        """An example created a `kind` with `real_id`: it is the document's next one."""
        self._created.setdefault(kind, []).append(real_id)

    def seen(self, kind: str, real_id: int) -> None:
        """An example showed a `kind` with `real_id`: the document's next one, unless it knows it already."""
        known = self._created.get(kind, []) + [real for (k, _), real in self._bound.items() if k == kind]
        if real_id not in known:
            self.created(kind, real_id)

    def real(self, kind: str, literal: int) -> int:
        key = (kind, literal)
        if key not in self._bound:
            made = self._created.get(kind, [])
            self._bound[key] = made[literal - 1] if 0 < literal <= len(made) else self._make(kind)
        return self._bound[key]

    def rewrite(self, text: str) -> str:
        """`text` (a URL, a JSON body) with every id of a known kind replaced by the real one."""
        for kind in KINDS.values():
            if not kind.collection:
                continue
            for segment in (kind.collection.rsplit("/", 1)[1], *kind.paths):
                pattern = re.compile(rf"(?<=/{re.escape(segment)}/)(\d+)\b")
                text = pattern.sub(lambda m, k=kind.name: str(self.real(k, int(m[1]))), text)
        for kind in KINDS.values():
            for key in kind.keys:
                json_key = re.compile(rf'("{key}"\s*:\s*)(\d+)')
                text = json_key.sub(lambda m, k=kind.name: m[1] + str(self.real(k, int(m[2]))), text)
                query = re.compile(rf"([?&]{key}=)(\d+)")
                text = query.sub(lambda m, k=kind.name: m[1] + str(self.real(k, int(m[2]))), text)
                array = re.compile(rf'("{key}s"\s*:\s*\[)([\d,\s]*)(\])')
                text = array.sub(lambda m, k=kind.name: m[1] + self._ids(k, m[2]) + m[3], text)
        return text

    def _ids(self, kind: str, listed: str) -> str:
        """The integers of a JSON array's body (`1, 2`), each replaced by its real id."""
        return re.sub(r"\d+", lambda m: str(self.real(kind, int(m[0]))), listed)


def creations(method: str, path: str, status: int, body: object) -> list[tuple[str, int]]:
    """The (kind, real id) pairs a successful request created, from its path and its answer."""
    if method != "POST" or status != 201 or not isinstance(body, dict) or not isinstance(body.get("data"), dict):
        return []
    data = body["data"]
    if path == "/knowledge-base/product-catalog":
        pairs = [("knowledge_base", data["knowledge_base"]["id"])]
        return pairs + [("product", product["id"]) for product in data["products"]]
    if path == "/messages/send":
        return [("message", data["id"])]
    if path == "/store/orders":
        return [("order", data["id"])]
    for kind in KINDS.values():
        if kind.collection and path == kind.collection and "id" in data:
            return [(kind.name, data["id"])]
    return []
