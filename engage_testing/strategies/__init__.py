"""Hypothesis strategies for the inputs of engage's public services.

Each strategy draws values the service accepts by default; `invalid=True` draws values it refuses
with :class:`engage_core.kernel.errors.ValidationFailed` (a 422 over HTTP), each breaking one rule.
Strategies over existing rows (order items, bookings, campaign audiences) take the ids to draw from.
"""

from __future__ import annotations

from .agents import agent_settings, memory_facts
from .bookings import TIMEZONES, booking_requests, booking_type_inputs, working_hours_inputs
from .campaigns import campaign_inputs, messages
from .commerce import catalog_csv_files, catalog_inputs, order_inputs, order_items, prices, product_inputs
from .contacts import (
    SegmentRulesInput,
    contact_inputs,
    contact_patches,
    emails,
    phones,
    segment_conditions,
    segment_rules,
    tag_titles,
)
from .knowledge import knowledge_entries
from .partners import admin_inputs, client_inputs, client_patches, plans
from .support import ticket_inputs, ticket_replies
from .voice import preset_voices, speech_texts, voice_patches
from .web_chat import colors, origins, visitor_details, visitor_messages, widget_patches
from .webhooks import event_names, target_urls, webhook_inputs

__all__ = [
    "TIMEZONES",
    "SegmentRulesInput",
    "admin_inputs",
    "agent_settings",
    "booking_requests",
    "booking_type_inputs",
    "campaign_inputs",
    "catalog_csv_files",
    "catalog_inputs",
    "client_inputs",
    "client_patches",
    "colors",
    "contact_inputs",
    "contact_patches",
    "emails",
    "event_names",
    "knowledge_entries",
    "memory_facts",
    "messages",
    "order_inputs",
    "order_items",
    "origins",
    "phones",
    "plans",
    "preset_voices",
    "prices",
    "product_inputs",
    "segment_conditions",
    "segment_rules",
    "speech_texts",
    "tag_titles",
    "target_urls",
    "ticket_inputs",
    "ticket_replies",
    "visitor_details",
    "visitor_messages",
    "voice_patches",
    "webhook_inputs",
    "widget_patches",
    "working_hours_inputs",
]
