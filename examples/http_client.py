"""Drive a running engage server over HTTP with httpx.

    make run                                   # in another terminal; prints a demo API key once
    python examples/http_client.py eng_...     # or: ENGAGE_API_KEY=eng_... python examples/http_client.py

The base address defaults to http://127.0.0.1:8000 (override with ENGAGE_BASE_URL or a second argument).
Creates a contact, tags it, searches for it, builds a segment of tagged WhatsApp contacts and lists
its members, then deletes the contact again.
"""

from __future__ import annotations

import os
import sys
import uuid
from typing import Any

import httpx


def main(argv: list[str]) -> int:
    api_key = argv[1] if len(argv) > 1 else os.environ.get("ENGAGE_API_KEY", "")
    base_url = argv[2] if len(argv) > 2 else os.environ.get("ENGAGE_BASE_URL", "http://127.0.0.1:8000")
    if not api_key:
        print("usage: python examples/http_client.py API_KEY [BASE_URL]  (or set ENGAGE_API_KEY)", file=sys.stderr)
        return 2
    with httpx.Client(base_url=f"{base_url}/api/v1", headers={"X-Api-Key": api_key}, timeout=10.0) as client:
        try:
            tour(client)
        except httpx.HTTPStatusError as exc:
            print(f"{exc.request.method} {exc.request.url} -> {exc.response.status_code}: {exc.response.text}")
            return 1
        except httpx.TransportError as exc:
            print(f"Cannot reach {base_url}: {exc}", file=sys.stderr)
            return 1
    return 0


def tour(client: httpx.Client) -> None:
    tag = f"demo-{uuid.uuid4().hex[:6]}"  # a fresh tag, so the segment below holds only this run's contact

    new_contact = {"name": "Ada Lovelace", "type": "instagram", "email": "ada@example.com"}
    contact = data(client.post("/contacts", json=new_contact))
    print(f"created contact {contact['id']}: {contact['name']}")

    data(client.post(f"/contacts/{contact['id']}/tags", json={"title": tag}))
    print(f"tagged it {tag!r}")

    found = client.get("/contacts", params={"search": "lovelace", "per_page": 5}).raise_for_status().json()
    print(f"search 'lovelace': {found['meta']['total']} match(es): {[c['name'] for c in found['data']]}")

    segment = data(
        client.post(
            "/contacts/segments",
            json={
                "name": f"Tagged {tag} on Instagram",
                "match": "all",
                "conditions": [
                    {"field": "tag", "operator": "has", "value": tag},
                    {"field": "type", "operator": "eq", "value": "instagram"},
                ],
            },
        )
    )
    print(f"created segment {segment['id']}: {segment['name']}")

    members = client.get(f"/contacts/segments/{segment['id']}/members").raise_for_status().json()
    print(f"segment members: {[m['name'] for m in members['data']]}")

    client.delete(f"/contacts/segments/{segment['id']}").raise_for_status()
    client.delete(f"/contacts/{contact['id']}").raise_for_status()
    print("cleaned up the segment and the contact")


def data(response: httpx.Response) -> Any:
    """The `data` of a successful envelope; raises on an error status."""
    return response.raise_for_status().json()["data"]


if __name__ == "__main__":
    sys.exit(main(sys.argv))
