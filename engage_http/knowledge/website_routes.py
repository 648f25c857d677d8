"""Website entries (SPEC 4): creating one, crawling it again, and its crawl's status.

`GET /knowledge-base/{id}/status` also answers for document entries (their files' processing).

A crawl never runs in the request: creating the entry (or asking for a re-crawl) queues a job that
the worker runs (`engage_core.knowledge.crawl_job`), and the answer is a 202 with the crawl
`pending`. Follow it with `GET /knowledge-base/{id}/status`.
"""

from __future__ import annotations

from engage_core.knowledge.websites import WebsiteInput
from engage_http.knowledge.document_schemas import KnowledgeDocumentStatus
from engage_http.knowledge.website_schemas import CrawlStatusView, WebsiteCreate, WebsiteEntry
from engage_http.operations import Call, Operation

TAG = "Knowledge base"


def create_website(call: Call[WebsiteInput, None]) -> WebsiteEntry:
    return WebsiteEntry.from_domain(call.services.websites.create(call.account_id, call.body))


def recrawl(call: Call[None, None]) -> WebsiteEntry:
    return WebsiteEntry.from_domain(call.services.websites.recrawl(call.account_id, call.path["id"]))


def entry_status(call: Call[None, None]) -> CrawlStatusView | KnowledgeDocumentStatus:
    """A website entry's crawl, or a document entry's files (SPEC 4 gives the two shapes)."""
    entry_id = call.path["id"]
    if call.services.knowledge_entries.type_of(call.account_id, entry_id) == "document":
        return KnowledgeDocumentStatus.from_domain(
            call.services.knowledge_documents.document_status(call.account_id, entry_id)
        )
    return CrawlStatusView.from_domain(call.services.websites.status(call.account_id, entry_id))


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "POST",
        "/knowledge-base/website",
        create_website,
        "Create a website entry",
        TAG,
        WebsiteEntry,
        status=202,
        message="Website queued for crawling.",
        body=WebsiteCreate,
        errors=frozenset({422}),
        description="Queues a crawl of the site (run by the worker, never in the request): robots.txt is "
        "honoured, the sitemap read, then links breadth-first within `max_pages` and `max_depth`. A URL that is "
        "not http(s), or whose host resolves to an internal address, is a 422.",
    ),
    Operation(
        "POST",
        "/knowledge-base/{id:id}/recrawl",
        recrawl,
        "Crawl a website entry again",
        TAG,
        WebsiteEntry,
        status=202,
        message="Website queued for crawling.",
        errors=frozenset({409, 422}),
        description="Forgets the pages read and queues a new crawl (its chunks and product catalog are replaced "
        "when it ends). 409 while a crawl is queued or under way; 422 for an entry that is not a website.",
    ),
    Operation(
        "GET",
        "/knowledge-base/{id:id}/status",
        entry_status,
        "Show the processing status of a website or document entry",
        TAG,
        CrawlStatusView | KnowledgeDocumentStatus,
        errors=frozenset({422}),
        description="A website entry: its crawl, `completed` once it has ended (`completed`, `partial` or "
        "`failed`). A document entry: its files, `completed` once none is `pending` or `processing`. Other types "
        "of entry are a 422.",
    ),
)
