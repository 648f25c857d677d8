"""Contacts in the dashboard: the list with search and filters, segments and their members.

`GET /app/contacts` pages through the contacts, newest first (`ContactService.find`: a search on
name, e-mail and phone, a channel, a tag, blacklisted or not), each linking to its conversation.
`GET /app/segments` lists the live segments with their counts, and `GET /app/segments/{id}` pages
through a segment's members as its rules select them now (`SegmentService.members`). Everyone may
read them: agents work with contacts too.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engage_core.contacts.model import CONTACT_TYPES, ContactFilter
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_http.dashboard.pages import APP_PREFIX, Viewer, Viewers, page, page_number, render
from engage_http.routing import in_worker_thread

PER_PAGE = 25
SEARCH_MAX = 255


def routes(services: Services, viewers: Viewers) -> list[Route]:
    """The contacts and segments pages."""

    async def contacts(request: Request, viewer: Viewer) -> Response:
        query = request.query_params
        kind = query.get("type") if query.get("type") in CONTACT_TYPES else None
        blacklisted = {"yes": True, "no": False}.get(query.get("blacklisted", ""))
        search = (query.get("search") or "").strip()[:SEARCH_MAX] or None
        tag = (query.get("tag") or "").strip()[:SEARCH_MAX] or None
        filters = ContactFilter(search=search, type=kind, blacklisted=blacklisted, tag=tag)
        number = page_number(query.get("page"))
        found = await in_worker_thread(
            services.contacts.find, viewer.account_id, filters, PageRequest(number, PER_PAGE), read=True
        )
        kept = {
            k: v
            for k, v in {"search": search, "type": kind, "tag": tag, "blacklisted": query.get("blacklisted")}.items()
            if v
        }
        return render(
            "contacts.html",
            viewer=viewer,
            title="Contacts",
            contacts=found,
            filters=filters,
            types=CONTACT_TYPES,
            blacklisted=query.get("blacklisted", ""),
            kept=kept,
        )

    async def segments(request: Request, viewer: Viewer) -> Response:
        found = await in_worker_thread(services.segments.list, viewer.account_id, read=True)
        return render("segments.html", viewer=viewer, title="Segments", segments=found)

    async def segment(request: Request, viewer: Viewer) -> Response:
        segment_id = int(request.path_params["segment_id"])
        found = await in_worker_thread(services.segments.get, viewer.account_id, segment_id, read=True)
        number = page_number(request.query_params.get("page"))
        members = await in_worker_thread(
            services.segments.members, viewer.account_id, segment_id, PageRequest(number, PER_PAGE), read=True
        )
        return render("segment.html", viewer=viewer, title=found.name, segment=found, members=members)

    return [
        Route(APP_PREFIX + "/contacts", page(viewers, contacts), methods=["GET"], name="contacts"),
        Route(APP_PREFIX + "/segments", page(viewers, segments), methods=["GET"], name="segments"),
        Route(APP_PREFIX + "/segments/{segment_id:int}", page(viewers, segment), methods=["GET"], name="segment"),
    ]
