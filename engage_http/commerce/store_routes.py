"""The store platform's inbound path (SPEC 2: `created_by` `store_platform`): a connected store
pushes its orders here with the workspace's API key (`docs/stores.md`).

Idempotent on the store's reference: pushing a reference the workspace already has returns the
stored order, unchanged, with `is_duplicate` true and status 200 instead of 201, so a store may
retry a push whose answer it never got.
"""

from __future__ import annotations

from engage_core.commerce.order_service import StoreOrderInput
from engage_http.commerce.store_schemas import ImportedOrder, StoreOrderImport
from engage_http.operations import Call, Operation, Reply

TAG = "Orders"

ALREADY_IMPORTED = "An order with this reference was imported before; it is returned unchanged."


def import_order(call: Call[StoreOrderInput, None]) -> ImportedOrder | Reply:
    placed = call.services.orders.import_store_order(call.account_id, call.body)
    if placed.is_duplicate:
        return Reply(ImportedOrder.from_placed(placed), ALREADY_IMPORTED, status=200)
    return ImportedOrder.from_placed(placed)


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "POST",
        "/store/orders",
        import_order,
        "Import an order from a store platform",
        TAG,
        ImportedOrder,
        status=201,
        message="Order imported.",
        body=StoreOrderImport,
        alternate_statuses=frozenset({200}),
        errors=frozenset({422}),  # also for rules no schema states: ids that must exist, the order total
        description="For store plugins and connectors, with the workspace's API key. The order is recorded as "
        "the store sent it (`created_by` `store_platform`, the store's prices and currency, any status) and "
        "emits `order.created`; local stock is not touched. A `product_id` must name a product of the "
        "catalogue and a `contact_id` a contact (else 422). A reference the workspace already has returns "
        "that order unchanged, with `is_duplicate` true and status 200. Status changes of such orders made "
        "here are pushed to the store first.",
    ),
)
