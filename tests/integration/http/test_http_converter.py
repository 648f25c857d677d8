"""The converter: strict primitives, partial updates, field-path errors."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engage_core.kernel.clock import format_timestamp
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.unset import UNSET
from engage_http.contacts.list_schemas import ListUpdate
from engage_http.contacts.schemas import ContactCreate, ContactUpdate, TagAssign
from engage_http.contacts.segment_schemas import SegmentCreate
from engage_http.converter import load_json, render_timestamp, structure


def errors_of(data: Any, cls: type) -> dict[str, list[str]]:
    with pytest.raises(ValidationFailed) as caught:
        structure(data, cls)
    return caught.value.errors


def test_a_string_is_not_an_integer() -> None:
    """JSON `"5"` is refused where an integer is expected."""
    assert errors_of({"tag_id": "5"}, TagAssign) == {"tag_id": ["The tag_id must be an integer."]}


def test_a_boolean_is_not_an_integer() -> None:
    """JSON `true` is refused where an integer is expected."""
    assert errors_of({"tag_id": True}, TagAssign) == {"tag_id": ["The tag_id must be an integer."]}


def test_an_integral_number_is_an_integer() -> None:
    """JSON `5.0` is the integer 5 (JSON has one number type)."""
    assert structure({"tag_id": 5.0}, TagAssign).tag_id == 5


def test_a_fraction_is_not_an_integer() -> None:
    """JSON `5.5` is refused where an integer is expected."""
    assert errors_of({"tag_id": 5.5}, TagAssign) == {"tag_id": ["The tag_id must be an integer."]}


def test_an_integer_is_not_a_string() -> None:
    """JSON `5` is refused where a string is expected."""
    assert errors_of({"title": 5}, TagAssign) == {"title": ["The title must be a string."]}


def test_a_boolean_is_not_a_list_status() -> None:
    """`true` is not the status `1`, although Python says `True == 1`."""
    assert errors_of({"status": True}, ListUpdate) == {"status": ["The status must be one of: 1, 0."]}


def test_a_string_is_not_an_array() -> None:
    """A string is not a list of characters."""
    data = {"name": "Ada", "type": "instagram", "tags": "vip"}

    assert errors_of(data, ContactCreate) == {"tags": ["The tags must be an array."]}


def test_null_is_refused_where_not_nullable() -> None:
    """`null` for a non-nullable field is a 422, not a silent default."""
    assert errors_of({"name": None}, ContactUpdate) == {"name": ["The name may not be null."]}


def test_null_is_kept_where_nullable() -> None:
    """`null` for a nullable field clears it."""
    assert structure({"email": None}, ContactUpdate).email is None


def test_fields_left_out_of_an_update_are_unset() -> None:
    """A partial update leaves out what it does not change."""
    update = structure({"name": "Ada"}, ContactUpdate)

    assert update.name == "Ada"
    assert update.email is UNSET
    assert update.tags is UNSET


def test_unknown_keys_are_ignored() -> None:
    """Keys the class does not know are dropped, not refused."""
    assert structure({"title": "VIP", "colour": "red"}, TagAssign).title == "VIP"


def test_missing_required_fields_are_named() -> None:
    """Each missing required field gets its own message."""
    assert errors_of({}, ContactCreate) == {
        "name": ["The name field is required."],
        "type": ["The type field is required."],
    }


def test_array_items_are_named_by_index() -> None:
    """An invalid array item is reported as `tags.1`."""
    data = {"name": "Ada", "type": "instagram", "tags": ["ok", "x" * 101]}

    assert errors_of(data, ContactCreate) == {"tags.1": ["The tags.1 may not be greater than 100 characters."]}


def test_nested_objects_are_named_by_path() -> None:
    """A bad field of the second condition is reported as `conditions.1.field`."""
    data = {"name": "S", "conditions": [{"field": "name", "operator": "contains"}, {"field": 3, "operator": "eq"}]}

    assert errors_of(data, SegmentCreate) == {"conditions.1.field": ["The conditions.1.field must be a string."]}


def test_blank_text_is_required_text_missing() -> None:
    """A name of only whitespace counts as missing."""
    assert errors_of({"name": " \u3000\t"}, ContactUpdate) == {"name": ["The name field is required."]}


def test_lone_surrogates_are_refused() -> None:
    """Text that cannot be encoded as UTF-8 is refused."""
    assert errors_of({"title": "\ud800"}, TagAssign) == {"title": ["The title must be valid Unicode text."]}


def test_enums_list_their_choices() -> None:
    """An unknown enum value names the choices."""
    data = {"name": "Ada", "type": "fax"}

    assert errors_of(data, ContactCreate) == {
        "type": ['The type must be one of: "whatsapp", "telegram", "instagram", "linkedin".']
    }


@pytest.mark.parametrize("raw", [b"NaN", b'{"a": Infinity}', b"{", b"[" * 50_000])
def test_non_json_bodies_are_refused(raw: bytes) -> None:
    """NaN, Infinity, truncated and absurdly nested bodies are not JSON."""
    with pytest.raises(ValidationFailed) as caught:
        load_json(raw)

    assert caught.value.errors == {"body": ["The request body is not valid JSON."]}


@given(
    st.datetimes(
        min_value=datetime(2, 1, 1),
        max_value=datetime(9998, 12, 31),
        timezones=st.sampled_from([UTC, timezone(timedelta(hours=-5))]),
    )
)
def test_timestamps_render_as_isoformat_spells_them(moment: datetime) -> None:
    """Timestamps render as ISO 8601 in UTC with microseconds and `Z`, for every datetime."""
    expected = moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"

    assert (render_timestamp(moment), format_timestamp(moment)) == (expected, expected)


_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@given(_json_values)
def test_bodies_parse_to_the_values_json_reads(value: object) -> None:
    """Any JSON document parses to what `json.loads` reads, integers beyond 64 bits included."""
    raw = json.dumps(value, ensure_ascii=False).encode()

    parsed = load_json(raw)

    assert (parsed, repr(parsed)) == (json.loads(raw), repr(json.loads(raw)))


def test_an_integer_beyond_64_bits_stays_an_exact_integer() -> None:
    """A 30-digit integer in a body is read as that integer, not as a float."""
    assert load_json(b'{"n": 123456789012345678901234567890}') == {"n": 123456789012345678901234567890}


def test_a_body_with_a_byte_order_mark_is_read_as_json_reads_it() -> None:
    """A UTF-8 byte-order mark before the document is accepted, as `json.loads` accepts it."""
    assert load_json(b'\xef\xbb\xbf{"name": "Ada"}') == {"name": "Ada"}
