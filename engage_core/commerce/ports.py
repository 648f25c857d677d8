"""What commerce (products, orders) needs: storage, and the connected online store."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime
from typing import Protocol

from engage_core.commerce.orders import Order, OrderDraft, OrderFilter, OrderItem, OrderItemDraft
from engage_core.commerce.products import Product, ProductDraft, ProductFilter
from engage_core.kernel.pagination import Page, PageRequest


class ProductRepository(Protocol):
    """Products of one account. Each belongs to one `product_catalog` knowledge-base entry.

    Stock moves only through `take_stock` and `restore_stock`, each a single conditional `UPDATE`
    (never a read followed by a write), so concurrent orders and restocks can never drive tracked
    stock below zero or above `STOCK_MAX` on either engine. Stock moves do not change `updated_at`."""

    def add_many(self, knowledge_base_id: int, drafts: Sequence[ProductDraft], now: datetime) -> Sequence[Product]:
        """Store the products in the catalog entry; ids ascend in the order given."""

    def get(self, product_id: int) -> Product | None:
        """The product `product_id`, or None."""

    def get_many(self, product_ids: Collection[int]) -> Mapping[int, Product]:
        """The products among `product_ids` that exist, by id (one query; unknown ids are left out)."""

    def find(self, filters: ProductFilter, page: PageRequest) -> Page[Product]:
        """Catalogue order: ascending id."""

    def for_catalog(self, knowledge_base_id: int) -> Sequence[Product]:
        """The products of one catalog entry, ascending id."""

    def delete(self, product_id: int) -> None:
        """Delete the product. Order items keep their snapshot, `product_id` included (no cascade)."""

    def unlink_media(self, media_id: int, now: datetime) -> int:
        """Take the media file `media_id` out of every product linking it (their `updated_at` set to
        `now`); how many products changed."""

    def take_stock(self, product_id: int, quantity: int) -> bool:
        """Take `quantity` (at least 1) from the product's stock if that many are on hand. True when
        taken, or when the product's stock is untracked (`stock_quantity` NULL: nothing changes);
        False when too few are on hand or the product does not exist (nothing changes).

        Atomic, one statement: `UPDATE products SET stock_quantity = stock_quantity - :q WHERE
        account_id = :account AND id = :id AND (stock_quantity IS NULL OR stock_quantity >= :q)`,
        True when it matched a row (NULL minus q stays NULL)."""

    def restore_stock(self, product_id: int, quantity: int) -> bool:
        """Add `quantity` (at least 1) to the product's stock unless that would pass `STOCK_MAX`.
        True when added, or when the stock is untracked (nothing changes); False when the sum would
        pass the maximum or the product does not exist (nothing changes). Cancellations, item
        reductions and restocks use it.

        Atomic, one statement: `UPDATE products SET stock_quantity = stock_quantity + :q WHERE
        account_id = :account AND id = :id AND (stock_quantity IS NULL OR stock_quantity <=
        :ceiling)`, with `ceiling = STOCK_MAX - q` (so the database never computes a sum that
        overflows its integer), True when it matched a row."""


class OrderRepository(Protocol):
    """Orders of one account with their items."""

    def add(self, draft: OrderDraft, now: datetime) -> Order:
        """Store the order and its items (item ids ascend in the order given); `created_at` =
        `updated_at` = `now`."""

    def get(self, order_id: int) -> Order | None:
        """The order `order_id` with its items, or None."""

    def find(self, filters: OrderFilter, page: PageRequest) -> Page[Order]:
        """Newest first (`created_at`, then `id`, descending)."""

    def find_duplicate(self, key: str, since: datetime) -> Order | None:
        """The newest order whose `duplicate_key` is `key`, created strictly after `since`, and not
        cancelled.

        Concurrency: from this call until the transaction ends, no other transaction may commit an
        order with the same key, so identical creates racing each other produce exactly one order
        (the others then find it). SQLite gets this from `BEGIN IMMEDIATE` (one writer at a time).
        PostgreSQL must take a transaction-level lock on the key before it reads, for example
        `pg_advisory_xact_lock(hashtextextended(:account || ':' || :key, 0))`."""

    def by_external_reference(self, reference: str) -> Order | None:
        """The store-sourced order with this store reference (unique per account). Same concurrency
        guarantee as `find_duplicate`, for the reference: one order per reference, however many
        imports race (a unique index on `(account_id, external_reference)` backs it)."""

    def update(self, order: Order) -> None:
        """Store every scalar field of `order` (status, customer fields, currency, subtotal, total,
        shipping_address, notes, cancelled_at, cancellation_reason, duplicate_key, updated_at). Items
        change only through `replace_items`."""

    def replace_items(self, order_id: int, items: Sequence[OrderItemDraft]) -> tuple[OrderItem, ...]:
        """Delete the order's items and store `items` in their place (new ids, ascending in the order
        given); returns the stored items."""


class StorePlatform(Protocol):
    """The connected online store that store-sourced orders (`created_by` `store_platform`) come from.

    The services call it before any local change and outside the database transaction."""

    def push_status(self, account_id: int, order: Order, slug: str) -> None:
        """Ask the store to move `order` of workspace `account_id` (the order as it is before the
        change; `external_reference` is its id at the store) to `slug` (`orders.STORE_SLUGS`:
        cancelling pushes `canceled`). Returns when the store accepted. Raises
        `orders.StoreRejected` with a message for the caller when it refused, and also when it
        could not be reached: either way the local order stays as it was. One store connector may
        serve many workspaces, which is why the account is named."""


class CommerceRepositories(Protocol):
    """Commerce's repositories, as a workspace unit of work hands them out."""

    @property
    def products(self) -> ProductRepository:
        """The products."""

    @property
    def orders(self) -> OrderRepository:
        """The orders."""
