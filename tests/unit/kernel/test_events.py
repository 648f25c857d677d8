"""The event catalogue of SPEC 6."""

from __future__ import annotations

from engage_core.kernel.events import CATALOGUE, EXTENSIONS, SUBSCRIBABLE, TEST_EVENT
from engage_core.messaging import handling
from engage_core.webchat import sessions as webchat_sessions


def test_catalogue_has_the_33_workspace_events() -> None:
    """SPEC 6 lists 33 workspace events besides webhook.test."""
    assert len(CATALOGUE) == len(set(CATALOGUE)) == 33


def test_contact_events_are_in_the_catalogue() -> None:
    """contact.created, contact.updated and contact.deleted are catalogued."""
    assert {"contact.created", "contact.updated", "contact.deleted"} <= set(CATALOGUE)


def test_webhook_test_is_subscribable_but_not_catalogued() -> None:
    """webhook.test can be subscribed to but is not a domain event."""
    assert TEST_EVENT == "webhook.test"
    assert TEST_EVENT in SUBSCRIBABLE
    assert TEST_EVENT not in CATALOGUE


def test_subscribable_is_catalogue_plus_test_plus_extensions() -> None:
    """Every catalogued event can be subscribed to, and nothing else but webhook.test and the extensions."""
    assert set(CATALOGUE) | {TEST_EVENT} | set(EXTENSIONS) == SUBSCRIBABLE


def test_the_extensions_are_not_spec_events() -> None:
    """The extension events are new names, none of SPEC 6's nor twice."""
    assert len(set(EXTENSIONS)) == len(EXTENSIONS) == 8
    assert not set(EXTENSIONS) & set(CATALOGUE)


def test_the_extensions_are_the_hand_over_events() -> None:
    """The extension events are the moves of the conversation hand-over, then web chat's events."""
    assert (*handling.EVENTS, *webchat_sessions.EVENTS) == EXTENSIONS
