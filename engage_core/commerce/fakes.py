"""In-memory fakes of commerce's ports: products (`take_stock` and `restore_stock` are the
reference semantics of the conditional updates the SQL adapter runs), orders, and a store
that accepts status changes until told to `reject()`."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from datetime import datetime

import attrs

from engage_core.commerce.orders import Order, OrderDraft, OrderFilter, OrderItem, OrderItemDraft, StoreRejected
from engage_core.commerce.products import STOCK_MAX, Product, ProductDraft, ProductFilter
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.memory import FakeArea, Repo, Tables
from engage_core.kernel.pagination import Page, PageRequest, paginate


@attrs.define
class CommerceTables(Tables):
    """The commerce area's rows, by table."""

    products: dict[int, tuple[int, Product]] = attrs.Factory(dict)
    orders: dict[int, tuple[int, Order]] = attrs.Factory(dict)

    def forget(self, kind: str, ident: int) -> None:
        """A deleted catalog entry takes its products with it (SQL: ON DELETE CASCADE)."""
        if kind == "knowledge_base":
            for key in [k for k, (_, p) in self.products.items() if p.knowledge_base_id == ident]:
                del self.products[key]


class _Repo(Repo):
    @property
    def _t(self) -> CommerceTables:
        """This area\'s tables, as the transaction sees them."""
        return self._state.of(CommerceTables)


class InMemoryProductRepository(_Repo):
    """Products; the stock methods are the conditional updates the SQL adapter runs."""

    def _mine(self) -> list[Product]:
        return sorted((p for (a, p) in self._t.products.values() if a == self._account), key=lambda p: p.id)

    def add_many(self, knowledge_base_id: int, drafts: Sequence[ProductDraft], now: datetime) -> Sequence[Product]:
        """In memory, as :meth:`.ProductRepository.add_many`."""
        added = []
        for draft in drafts:
            product = Product(
                id=self._store.next_id(),
                knowledge_base_id=knowledge_base_id,
                name=draft.name,
                description=draft.description,
                sku=draft.sku,
                category=draft.category,
                price=draft.price,
                currency=draft.currency,
                stock_quantity=draft.stock_quantity,
                image_url=draft.image_url,
                is_available=draft.is_available,
                product_attributes=dict(draft.product_attributes),
                media_file_ids=draft.media_file_ids,
                created_at=now,
                updated_at=now,
            )
            self._t.products[product.id] = (self._account, product)
            added.append(product)
        return added

    def get(self, product_id: int) -> Product | None:
        """In memory, as :meth:`.ProductRepository.get`."""
        row = self._t.products.get(product_id)
        return None if row is None or row[0] != self._account else row[1]

    def get_many(self, product_ids: Collection[int]) -> Mapping[int, Product]:
        """In memory, as :meth:`.ProductRepository.get_many`."""
        return {pid: product for pid in product_ids if (product := self.get(pid)) is not None}

    def find(self, filters: ProductFilter, page: PageRequest) -> Page[Product]:
        """In memory, as :meth:`.ProductRepository.find`."""

        def keep(p: Product) -> bool:
            if filters.category is not None and (p.category or "").casefold() != filters.category.casefold():
                return False
            if filters.search:
                needle = filters.search.casefold()
                return any(needle in (v or "").casefold() for v in (p.name, p.sku, p.category))
            return True

        return paginate([p for p in self._mine() if keep(p)], page)

    def for_catalog(self, knowledge_base_id: int) -> Sequence[Product]:
        """In memory, as :meth:`.ProductRepository.for_catalog`."""
        return [p for p in self._mine() if p.knowledge_base_id == knowledge_base_id]

    def delete(self, product_id: int) -> None:
        """In memory, as :meth:`.ProductRepository.delete`."""
        if self.get(product_id) is not None:
            del self._t.products[product_id]

    def unlink_media(self, media_id: int, now: datetime) -> int:
        """In memory, as :meth:`.ProductRepository.unlink_media`."""
        changed = 0
        for product in self._mine():
            if media_id in product.media_file_ids:
                ids = tuple(i for i in product.media_file_ids if i != media_id)
                self._t.products[product.id] = (
                    self._account,
                    attrs.evolve(product, media_file_ids=ids, updated_at=now),
                )
                changed += 1
        return changed

    def take_stock(self, product_id: int, quantity: int) -> bool:
        """In memory, as :meth:`.ProductRepository.take_stock`."""
        product = self.get(product_id)
        if product is None:
            return False
        if product.stock_quantity is None:
            return True
        if product.stock_quantity < quantity:
            return False
        self._t.products[product_id] = (
            self._account,
            attrs.evolve(product, stock_quantity=product.stock_quantity - quantity),
        )
        return True

    def restore_stock(self, product_id: int, quantity: int) -> bool:
        """In memory, as :meth:`.ProductRepository.restore_stock`."""
        product = self.get(product_id)
        if product is None:
            return False
        if product.stock_quantity is None:
            return True
        if product.stock_quantity > STOCK_MAX - quantity:
            return False
        self._t.products[product_id] = (
            self._account,
            attrs.evolve(product, stock_quantity=product.stock_quantity + quantity),
        )
        return True


class InMemoryOrderRepository(_Repo):
    """The in-memory :class:`.OrderRepository`."""

    def _mine(self) -> list[Order]:
        return [o for (a, o) in self._t.orders.values() if a == self._account]

    def _items(self, items: Sequence[OrderItemDraft]) -> tuple[OrderItem, ...]:
        return tuple(
            OrderItem(
                self._store.next_id(), i.product_id, i.product_name, i.product_sku, i.quantity, i.unit_price,
                i.total_price,
            )
            for i in items
        )  # fmt: skip

    def add(self, draft: OrderDraft, now: datetime) -> Order:
        """In memory, as :meth:`.OrderRepository.add`."""
        if draft.external_reference is not None and self.by_external_reference(draft.external_reference):
            raise ValidationFailed.on("external_reference", "An order with this external reference already exists.")
        order = Order(
            id=self._store.next_id(),
            contact_id=draft.contact_id,
            customer_name=draft.customer_name,
            customer_phone=draft.customer_phone,
            customer_email=draft.customer_email,
            status=draft.status,
            subtotal=draft.subtotal,
            total=draft.total,
            currency=draft.currency,
            shipping_address=draft.shipping_address,
            notes=draft.notes,
            created_by=draft.created_by,
            items=self._items(draft.items),
            cancelled_at=draft.cancelled_at,
            cancellation_reason=draft.cancellation_reason,
            created_at=now,
            updated_at=now,
            external_reference=draft.external_reference,
            duplicate_key=draft.duplicate_key,
        )
        self._t.orders[order.id] = (self._account, order)
        return order

    def get(self, order_id: int) -> Order | None:
        """In memory, as :meth:`.OrderRepository.get`."""
        row = self._t.orders.get(order_id)
        return None if row is None or row[0] != self._account else row[1]

    def find(self, filters: OrderFilter, page: PageRequest) -> Page[Order]:
        """In memory, as :meth:`.OrderRepository.find`."""
        found = sorted(
            (o for o in self._mine() if filters.matches(o)), key=lambda o: (o.created_at, o.id), reverse=True
        )
        return paginate(found, page)

    def find_duplicate(self, key: str, since: datetime) -> Order | None:
        """In memory, as :meth:`.OrderRepository.find_duplicate`."""
        found = [o for o in self._mine() if o.duplicate_key == key and o.created_at > since and o.status != "cancelled"]
        return max(found, key=lambda o: (o.created_at, o.id), default=None)

    def by_external_reference(self, reference: str) -> Order | None:
        """In memory, as :meth:`.OrderRepository.by_external_reference`."""
        return next((o for o in self._mine() if o.external_reference == reference), None)

    def update(self, order: Order) -> None:
        """In memory, as :meth:`.OrderRepository.update`."""
        current = self.get(order.id)
        if current is not None:
            self._t.orders[order.id] = (self._account, attrs.evolve(order, items=current.items))

    def replace_items(self, order_id: int, items: Sequence[OrderItemDraft]) -> tuple[OrderItem, ...]:
        """In memory, as :meth:`.OrderRepository.replace_items`."""
        current = self.get(order_id)
        if current is None:
            return ()
        stored = self._items(items)
        self._t.orders[order_id] = (self._account, attrs.evolve(current, items=stored))
        return stored


@attrs.frozen
class StorePush:
    """A status change a store platform accepted."""

    order_id: int
    external_reference: str | None
    slug: str


class FakeStorePlatform:
    """A store that accepts every status change (recorded in `pushes`) until told to `reject()`."""

    def __init__(self) -> None:
        self.pushes: list[StorePush] = []
        self.rejecting: str | None = None

    def reject(self, message: str = "The store refused the status change.") -> None:
        """Refuse every push from now on, with `message`."""
        self.rejecting = message

    def accept(self) -> None:
        """Accept status changes again: undo :meth:`reject`."""
        self.rejecting = None

    def push_status(self, account_id: int, order: Order, slug: str) -> None:
        """In memory, as :meth:`.StorePlatform.push_status`."""
        if self.rejecting is not None:
            raise StoreRejected(self.rejecting)
        self.pushes.append(StorePush(order.id, order.external_reference, slug))


AREA = FakeArea(
    CommerceTables,
    workspace={
        "products": InMemoryProductRepository,
        "orders": InMemoryOrderRepository,
    },
)
