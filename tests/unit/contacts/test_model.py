"""Contact values and their event payloads (SPEC 6)."""

from __future__ import annotations

from datetime import timedelta

from ..factories import START, contact_entity

CREATED_FIELDS = {
    "id",
    "name",
    "email",
    "phone",
    "type",
    "status",
    "is_blacklist",
    "source",
    "company",
    "address",
    "country_id",
    "created_at",
    "updated_at",
}
"""`contact.created` / `contact.updated` data fields of SPEC 6."""

DOCUMENTED_EXTRA_FIELDS = {"tags", "last_message_at"}
"""Fields engage adds to contact.created/updated beyond SPEC 6 (additive, SPEC 9.4): the contact's tag
titles and the time of its last message, which the Contact resource of SPEC 2 also carries."""

DELETED_FIELDS = {"id", "name", "phone", "email", "type", "deleted_at"}


def test_event_payload_has_every_spec_field() -> None:
    """contact.created/updated data carry every field SPEC 6 lists."""
    assert set(contact_entity().event_payload()) >= CREATED_FIELDS


def test_event_payload_adds_only_documented_fields() -> None:
    """Beyond SPEC 6, the payload adds only `tags` and `last_message_at`."""
    assert set(contact_entity().event_payload()) - CREATED_FIELDS == DOCUMENTED_EXTRA_FIELDS


def test_event_payload_calls_blacklisted_is_blacklist() -> None:
    """The blacklist flag is named `is_blacklist` in events, as SPEC 6 says."""
    assert contact_entity(blacklisted=True).event_payload()["is_blacklist"] is True


def test_event_payload_timestamps_are_iso_z_strings() -> None:
    """created_at and updated_at are ISO 8601 strings with microseconds and `Z`."""
    payload = contact_entity(updated_at=START + timedelta(seconds=1)).event_payload()
    assert (payload["created_at"], payload["updated_at"]) == (
        "2026-01-01T12:00:00.000000Z",
        "2026-01-01T12:00:01.000000Z",
    )


def test_event_payload_lists_tags_as_a_json_array() -> None:
    """Tags are a list (JSON array), not a tuple."""
    assert contact_entity(tags=("a", "b")).event_payload()["tags"] == ["a", "b"]


def test_deleted_payload_has_exactly_the_spec_fields() -> None:
    """contact.deleted data are exactly id, name, phone, email, type and deleted_at."""
    assert set(contact_entity().deleted_payload(START)) == DELETED_FIELDS


def test_deleted_payload_stamps_the_deletion_time() -> None:
    """deleted_at is the moment given, formatted."""
    later = START + timedelta(days=2)
    assert contact_entity().deleted_payload(later)["deleted_at"] == "2026-01-03T12:00:00.000000Z"
