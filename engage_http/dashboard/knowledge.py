"""The knowledge base in the dashboard: entries, a search preview, text entries and website crawls.

`GET /app/knowledge` pages through the entries (by type and status) and answers a search preview:
the passages AI agents would be given for a question (`KnowledgeChunkService.search`), with the
matched words marked and a plain note when nothing answers it well. Admins add a text entry
(`create_text`), documents (`KnowledgeDocumentService.create`: up to ten files of the formats and
sizes the API takes, read before the answer) or a website to crawl (`WebsiteService.create`, run by
the worker). An entry's page shows its text, its documents, its products or its crawl, whose
progress refreshes in place while the crawl runs; admins re-crawl a website and delete an entry.
Voice notes stay with the API.
"""

from __future__ import annotations

import shutil
import tempfile
from functools import partial
from pathlib import Path

from starlette.datastructures import UploadFile
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.knowledge.chunks import SearchResult
from engage_core.knowledge.documents import DocumentInput, DocumentUpload
from engage_core.knowledge.entries import TextInput
from engage_core.knowledge.model import KB_STATUSES, KB_TYPES, KnowledgeBaseFilter
from engage_core.knowledge.websites import WebsiteInput
from engage_core.services import Services
from engage_http.dashboard.pages import (
    APP_PREFIX,
    Page,
    Viewer,
    Viewers,
    admin_route,
    field_errors,
    form_text,
    page,
    page_number,
    redirect,
    render,
)
from engage_http.routing import in_worker_thread

BASE = APP_PREFIX + "/knowledge"
PER_PAGE = 25
PREVIEW_HITS = 5
NOTICES = {
    "created": "Entry added.",
    "crawling": "The crawl is queued; its progress shows below.",
    "deleted": "Entry deleted.",
}


def _create_documents(services: Services, account_id: int, title: str, files: list[UploadFile]) -> int:
    """A document entry of the uploaded files (copied to a temporary directory, as the API does:
    never under the client's file name); its id."""
    with tempfile.TemporaryDirectory(prefix="engage-documents-") as directory:
        uploads = []
        for index, upload in enumerate(files):
            path = Path(directory) / f"upload-{index}"
            with path.open("wb") as out:
                shutil.copyfileobj(upload.file, out)
            uploads.append(DocumentUpload(upload.filename or f"file-{index}", path))
        created = services.knowledge_documents.create(account_id, DocumentInput(title, uploads))
    return created.knowledge_base.id


def routes(services: Services, viewers: Viewers) -> list[Route]:
    """The knowledge pages; adding, re-crawling and deleting are for admins."""
    entries = services.knowledge_entries

    async def listing(
        request: Request,
        viewer: Viewer,
        *,
        status: int = 200,
        errors: dict[str, str] | None = None,
        draft: dict[str, str] | None = None,
    ) -> Response:
        query = request.query_params
        kind = query.get("type") if query.get("type") in KB_TYPES else None
        state = query.get("status") if query.get("status") in KB_STATUSES else None
        filters = KnowledgeBaseFilter(type=kind, status=state)
        number = page_number(query.get("page"))
        found = await in_worker_thread(
            entries.list, viewer.account_id, filters, PageRequest(number, PER_PAGE), read=True
        )
        question = (query.get("q") or "").strip()
        preview: SearchResult | None = None
        preview_error = None
        if question:
            try:
                search = partial(services.knowledge_chunks.search, limit=PREVIEW_HITS)
                preview = await in_worker_thread(search, viewer.account_id, question, read=True)
            except ValidationFailed as exc:
                preview_error = exc.message
        kept = {k: v for k, v in {"type": kind, "status": state, "q": question}.items() if v}
        return render(
            "knowledge.html",
            status,
            viewer=viewer,
            title="Knowledge base",
            entries=found,
            filters=filters,
            types=KB_TYPES,
            statuses=KB_STATUSES,
            question=question,
            preview=preview,
            preview_error=preview_error,
            kept=kept,
            errors=errors or {},
            draft=draft or {},
            notice=NOTICES.get(query.get("done", "")),
        )

    async def show_list(request: Request, viewer: Viewer) -> Response:
        return await listing(request, viewer)

    async def add_text(request: Request, viewer: Viewer) -> Response:
        form = await request.form()
        data = TextInput(form_text(form, "title"), form_text(form, "content"))
        try:
            created = await in_worker_thread(entries.create_text, viewer.account_id, data)
        except ValidationFailed as exc:
            errors = {f"text.{k}": v for k, v in field_errors(exc).items()}
            return await listing(
                request,
                viewer,
                status=422,
                errors=errors,
                draft={"text.title": data.title, "text.content": data.content},
            )
        return redirect(f"{BASE}/{created.id}?done=created")

    async def add_website(request: Request, viewer: Viewer) -> Response:
        form = await request.form()
        fields = {name: form_text(form, name) for name in ("title", "website_url", "max_pages", "max_depth")}
        try:
            data = WebsiteInput(
                fields["title"],
                fields["website_url"],
                max_pages=int(fields["max_pages"] or 10),
                max_depth=int(fields["max_depth"] or 2),
            )
            created = await in_worker_thread(services.websites.create, viewer.account_id, data)
        except ValueError:
            errors = {"website.max_pages": "The limits must be whole numbers."}
            return await listing(
                request, viewer, status=422, errors=errors, draft={f"website.{k}": v for k, v in fields.items()}
            )
        except ValidationFailed as exc:
            errors = {f"website.{k}": v for k, v in field_errors(exc).items()}
            return await listing(
                request, viewer, status=422, errors=errors, draft={f"website.{k}": v for k, v in fields.items()}
            )
        return redirect(f"{BASE}/{created.knowledge_base.id}?done=crawling")

    async def add_documents(request: Request, viewer: Viewer) -> Response:
        form = await request.form()
        title = form_text(form, "title")
        files = [upload for upload in form.getlist("files") if isinstance(upload, UploadFile) and upload.filename]
        try:
            created = await in_worker_thread(_create_documents, services, viewer.account_id, title, files)
        except ValidationFailed as exc:
            errors = {f"documents.{k.split('.')[0]}": v for k, v in field_errors(exc).items()}
            return await listing(request, viewer, status=422, errors=errors, draft={"documents.title": title})
        return redirect(f"{BASE}/{created}?done=created")

    async def show(request: Request, viewer: Viewer) -> Response:
        entry_id = int(request.path_params["entry_id"])
        detail = await in_worker_thread(entries.get, viewer.account_id, entry_id, read=True)
        return render(
            "knowledge_entry.html",
            request=request,
            viewer=viewer,
            title=detail.entry.title,
            detail=detail,
            notice=NOTICES.get(request.query_params.get("done", "")),
        )

    async def recrawl(request: Request, viewer: Viewer) -> Response:
        entry_id = int(request.path_params["entry_id"])
        await in_worker_thread(services.websites.recrawl, viewer.account_id, entry_id)
        return redirect(f"{BASE}/{entry_id}?done=crawling")

    async def delete(request: Request, viewer: Viewer) -> Response:
        await in_worker_thread(entries.delete, viewer.account_id, int(request.path_params["entry_id"]))
        return redirect(f"{BASE}?done=deleted")

    def admin(handler: Page, path: str, name: str) -> Route:
        return admin_route(viewers, handler, "POST", path, name)

    one = BASE + "/{entry_id:int}"
    return [
        Route(BASE, page(viewers, show_list), methods=["GET"], name="knowledge"),
        Route(one, page(viewers, show), methods=["GET"], name="knowledge_entry"),
        admin(add_text, BASE + "/text", "knowledge_add_text"),
        admin(add_website, BASE + "/website", "knowledge_add_website"),
        admin(add_documents, BASE + "/documents", "knowledge_add_documents"),
        admin(recrawl, one + "/recrawl", "knowledge_recrawl"),
        admin(delete, one + "/delete", "knowledge_delete"),
    ]
