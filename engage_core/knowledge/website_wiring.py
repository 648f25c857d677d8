"""Website entries' services, and the job handler of their crawls, as `Services` holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engage_core.dependencies import Unconfigured
from engage_core.jobs.runner import Handler
from engage_core.knowledge.crawl_job import CrawlJob
from engage_core.knowledge.embedding_jobs import EmbeddingQueue
from engage_core.knowledge.website_service import WebsiteService
from engage_core.knowledge.websites import CRAWL_JOB

if TYPE_CHECKING:
    from engage_core.dependencies import Dependencies


class WebsiteServices:
    """The website entries' service, and the crawl job when a crawler is configured."""

    websites: WebsiteService
    _crawl_job: CrawlJob | None

    def wire(self, deps: Dependencies) -> None:
        """Build this area's services from `deps` (called once by :class:`.Services`)."""
        self.websites = WebsiteService(deps.uow, deps.clock, deps.guard)
        configured = not isinstance(deps.crawler, Unconfigured)
        embeddings = EmbeddingQueue(deps.embedder is not None)
        self._crawl_job = CrawlJob(deps.uow, deps.clock, deps.crawler, embeddings) if configured else None

    def job_handlers(self) -> dict[str, Handler]:
        """The crawl job's handler, by kind (none without a crawler: crawls then wait in the queue)."""
        return {} if self._crawl_job is None else {CRAWL_JOB: self._crawl_job}
