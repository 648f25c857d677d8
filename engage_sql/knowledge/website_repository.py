"""Website records and their crawled pages, of one account."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal
from typing import Any

from sqlalchemy import delete, insert, select, update

from engage_core.knowledge.crawling import FoundProduct
from engage_core.knowledge.websites import StoredPage, Website, WebsiteDraft
from engage_sql.knowledge.website_tables import knowledge_base_website_pages, knowledge_base_websites
from engage_sql.repository import WorkspaceRepository
from engage_sql.types import AnyRow

_W = knowledge_base_websites
_P = knowledge_base_website_pages


def _website(row: AnyRow) -> Website:
    return Website(
        id=row.id,
        knowledge_base_id=row.knowledge_base_id,
        website_url=row.website_url,
        sitemap_url=row.sitemap_url,
        crawl_entire_site=bool(row.crawl_entire_site),
        max_pages=row.max_pages,
        max_depth=row.max_depth,
        allowed_paths=tuple(row.allowed_paths or ()),
        excluded_paths=tuple(row.excluded_paths or ()),
        crawl_status=row.crawl_status,
        pages_crawled=row.pages_crawled,
        pages_failed=row.pages_failed,
        total_pages_found=row.total_pages_found,
        progress_pct=row.progress_pct,
        crawl_error=row.crawl_error,
        last_crawled_at=row.last_crawled_at,
        catalog_id=row.catalog_id,
        created_at=row.created_at,
        updated_at=row.updated_at,
    )


def _product_json(product: FoundProduct) -> dict[str, Any]:
    return {
        "name": product.name,
        "price": None if product.price is None else str(product.price),
        "currency": product.currency,
        "sku": product.sku,
        "url": product.url,
        "image_url": product.image_url,
        "description": product.description,
    }


def _product(data: dict[str, Any]) -> FoundProduct:
    price = data.get("price")
    return FoundProduct(
        name=data["name"],
        price=None if price is None else Decimal(price),
        currency=data.get("currency"),
        sku=data.get("sku"),
        url=data.get("url"),
        image_url=data.get("image_url"),
        description=data.get("description"),
    )


class SqlWebsiteRepository(WorkspaceRepository):
    def add(self, knowledge_base_id: int, draft: WebsiteDraft, now: datetime) -> Website:
        row = self._conn.execute(
            insert(_W)
            .values(
                account_id=self._account_id,
                knowledge_base_id=knowledge_base_id,
                website_url=draft.website_url,
                sitemap_url=draft.sitemap_url,
                crawl_entire_site=draft.crawl_entire_site,
                max_pages=draft.max_pages,
                max_depth=draft.max_depth,
                allowed_paths=list(draft.allowed_paths),
                excluded_paths=list(draft.excluded_paths),
                crawl_status="pending",
                pages_crawled=0,
                pages_failed=0,
                total_pages_found=0,
                progress_pct=0,
                crawl_error=None,
                last_crawled_at=None,
                catalog_id=None,
                created_at=now,
                updated_at=now,
            )
            .returning(*_W.c)
        ).one()
        return _website(row)

    def get(self, knowledge_base_id: int) -> Website | None:
        row = self._conn.execute(
            select(*_W.c).where(self.owned(_W), _W.c.knowledge_base_id == knowledge_base_id)
        ).one_or_none()
        return None if row is None else _website(row)

    def save(self, website: Website, now: datetime) -> Website:
        row = self._conn.execute(
            update(_W)
            .where(self.owned(_W), _W.c.knowledge_base_id == website.knowledge_base_id)
            .values(
                crawl_status=website.crawl_status,
                pages_crawled=website.pages_crawled,
                pages_failed=website.pages_failed,
                total_pages_found=website.total_pages_found,
                progress_pct=website.progress_pct,
                crawl_error=website.crawl_error,
                last_crawled_at=website.last_crawled_at,
                catalog_id=website.catalog_id,
                updated_at=now,
            )
            .returning(*_W.c)
        ).one_or_none()
        return website if row is None else _website(row)

    def add_page(self, knowledge_base_id: int, page: StoredPage, now: datetime) -> bool:
        if self.get(knowledge_base_id) is None:
            return False
        held = self._conn.execute(
            select(_P.c.id).where(self.owned(_P), _P.c.knowledge_base_id == knowledge_base_id, _P.c.url == page.url)
        ).first()
        if held is not None:
            return False
        self._conn.execute(
            insert(_P).values(
                account_id=self._account_id,
                knowledge_base_id=knowledge_base_id,
                url=page.url,
                title=None if page.title is None else page.title[:1000],
                text=page.text,
                links=list(page.links),
                products=[_product_json(p) for p in page.products],
                depth=page.depth,
                truncated=page.truncated,
                created_at=now,
            )
        )
        return True

    def pages(self, knowledge_base_id: int) -> Sequence[StoredPage]:
        rows = self._conn.execute(
            select(_P.c.url, _P.c.title, _P.c.text, _P.c.depth, _P.c.links, _P.c.truncated, _P.c.products)
            .where(self.owned(_P), _P.c.knowledge_base_id == knowledge_base_id)
            .order_by(_P.c.id)
        )
        return [
            StoredPage(
                url=row.url,
                title=row.title,
                text=row.text,
                depth=row.depth,
                links=tuple(row.links or ()),
                truncated=bool(row.truncated),
                products=tuple(_product(p) for p in row.products or ()),
            )
            for row in rows
        ]

    def clear_pages(self, knowledge_base_id: int) -> None:
        self._conn.execute(delete(_P).where(self.owned(_P), _P.c.knowledge_base_id == knowledge_base_id))
