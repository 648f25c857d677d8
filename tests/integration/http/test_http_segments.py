"""Segments: rules over contacts plus manual membership (our design of the SPEC's open endpoints)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from http_support import Api, Tenant

from engage_core.contacts.model import Contact
from engage_core.contacts.segments import Segment

TAGGED_VIP = {"field": "tag", "operator": "has", "value": "VIP"}


def test_create_answers_201_with_the_segment(api: Api, tenant: Tenant, make_contact: Callable[..., Contact]) -> None:
    """`POST /contacts/segments` stores the rules and counts the members."""
    make_contact(tenant, tags=["VIP"])

    response = api.post("/contacts/segments", json={"name": "VIPs", "conditions": [TAGGED_VIP]})

    assert response.status_code == 201
    data = response.json()["data"]
    assert data == {
        "id": data["id"],
        "name": "VIPs",
        "description": None,
        "match": "all",
        "conditions": [TAGGED_VIP],
        "contacts_count": 1,
        "created_at": "2026-01-01T12:00:00.000000Z",
        "updated_at": "2026-01-01T12:00:00.000000Z",
    }
    assert response.json()["message"] == "Segment created."


def test_create_renders_timestamps_canonically(api: Api) -> None:
    """A time condition's value comes back in the canonical UTC form."""
    condition = {"field": "created_at", "operator": "after", "value": "2026-01-01T14:00:00+02:00"}

    data = api.post("/contacts/segments", json={"name": "New", "conditions": [condition]}).json()["data"]

    assert data["conditions"][0]["value"] == "2026-01-01T12:00:00.000000Z"


def test_create_requires_a_name(api: Api) -> None:
    """A segment without a name is a 422."""
    assert api.post("/contacts/segments", json={}).json()["errors"] == {"name": ["The name field is required."]}


@pytest.mark.parametrize(
    ("condition", "path"),
    [
        ({"field": "colour", "operator": "eq", "value": "red"}, "conditions.1.field"),
        ({"field": "name", "operator": "eq", "value": "x"}, "conditions.1.operator"),
        ({"field": "created_at", "operator": "within_days", "value": "7"}, "conditions.1.value"),
        ({"field": "created_at", "operator": "before", "value": "yesterday"}, "conditions.1.value"),
        ({"field": "created_at", "operator": "before", "value": "0001-01-01T00:00:00+05:00"}, "conditions.1.value"),
    ],
)
def test_an_invalid_condition_is_named_by_path(api: Api, condition: dict[str, object], path: str) -> None:
    """A bad condition is a 422 naming `conditions.<index>.<part>`."""
    response = api.post("/contacts/segments", json={"name": "S", "conditions": [TAGGED_VIP, condition]})

    assert response.status_code == 422
    assert list(response.json()["errors"]) == [path]


def test_an_integral_number_of_days_is_accepted(api: Api) -> None:
    """`within_days: 7.0` is the whole number 7."""
    condition = {"field": "created_at", "operator": "within_days", "value": 7.0}

    response = api.post("/contacts/segments", json={"name": "Recent", "conditions": [condition]})

    assert response.json()["data"]["conditions"][0]["value"] == 7


def test_more_than_fifty_conditions_is_422(api: Api) -> None:
    """A segment holds at most 50 conditions."""
    response = api.post("/contacts/segments", json={"name": "S", "conditions": [TAGGED_VIP] * 51})

    assert response.json()["errors"] == {"conditions": ["The conditions may not have more than 50 items."]}


def test_list_shows_segments_with_counts(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact], make_segment: Callable[..., Segment]
) -> None:
    """`GET /contacts/segments` lists every segment with `contacts_count`."""
    make_contact(tenant, tags=["VIP"])
    make_segment(tenant, "VIPs", conditions=[TAGGED_VIP])

    [item] = api.get("/contacts/segments").json()["data"]

    assert (item["name"], item["contacts_count"]) == ("VIPs", 1)


def test_show_renders_the_segment(api: Api, tenant: Tenant, make_segment: Callable[..., Segment]) -> None:
    """`GET /contacts/segments/{id}` renders one segment."""
    segment = make_segment(tenant, "VIPs", match="any", conditions=[TAGGED_VIP])

    data = api.get(f"/contacts/segments/{segment.id}").json()["data"]

    assert (data["name"], data["match"], data["conditions"]) == ("VIPs", "any", [TAGGED_VIP])


def test_show_of_a_missing_segment_is_404(api: Api) -> None:
    """An unknown segment id is a 404."""
    assert api.get("/contacts/segments/9999").status_code == 404


def test_update_changes_only_the_given_fields(api: Api, tenant: Tenant, make_segment: Callable[..., Segment]) -> None:
    """`PUT` with a subset keeps the rest."""
    segment = make_segment(tenant, "VIPs", description="Best customers", conditions=[TAGGED_VIP])

    data = api.put(f"/contacts/segments/{segment.id}", json={"match": "any"}).json()["data"]

    assert (data["name"], data["description"], data["match"], data["conditions"]) == (
        "VIPs",
        "Best customers",
        "any",
        [TAGGED_VIP],
    )


def test_update_replaces_the_conditions(api: Api, tenant: Tenant, make_segment: Callable[..., Segment]) -> None:
    """`conditions` in a `PUT` replaces the whole list."""
    segment = make_segment(tenant, conditions=[TAGGED_VIP])
    blacklisted = {"field": "blacklisted", "operator": "eq", "value": True}

    data = api.put(f"/contacts/segments/{segment.id}", json={"conditions": [blacklisted]}).json()["data"]

    assert data["conditions"] == [blacklisted]


def test_update_refuses_an_invalid_match(api: Api, tenant: Tenant, make_segment: Callable[..., Segment]) -> None:
    """`match` must be `all` or `any`."""
    segment = make_segment(tenant)

    assert list(api.put(f"/contacts/segments/{segment.id}", json={"match": "most"}).json()["errors"]) == ["match"]


def test_update_of_a_missing_segment_is_404(api: Api) -> None:
    """Updating an unknown segment is a 404."""
    assert api.put("/contacts/segments/9999", json={"name": "x"}).status_code == 404


def test_delete_answers_204(api: Api, tenant: Tenant, make_segment: Callable[..., Segment]) -> None:
    """`DELETE /contacts/segments/{id}` answers 204 and the segment is gone."""
    segment = make_segment(tenant)

    assert api.delete(f"/contacts/segments/{segment.id}").status_code == 204
    assert api.get(f"/contacts/segments/{segment.id}").status_code == 404


def test_delete_of_a_missing_segment_is_404(api: Api) -> None:
    """Deleting an unknown segment is a 404."""
    assert api.delete("/contacts/segments/9999").status_code == 404


def test_members_are_rule_matches_and_manual_additions(
    api: Api, tenant: Tenant, make_contact: Callable[..., Contact], make_segment: Callable[..., Segment]
) -> None:
    """Members are the contacts the rules select plus those added by hand, as member items."""
    vip = make_contact(tenant, name="Ada", tags=["VIP"])
    added = make_contact(tenant, name="Grace")
    make_contact(tenant, name="Linus")
    segment = make_segment(tenant, conditions=[TAGGED_VIP])
    api.post(f"/contacts/{added.id}/segments", json={"segment_id": segment.id})

    body = api.get(f"/contacts/segments/{segment.id}/members").json()

    assert body["data"] == [
        {"id": vip.id, "name": "Ada", "phone": None, "type": "instagram"},
        {"id": added.id, "name": "Grace", "phone": None, "type": "instagram"},
    ]
    assert body["meta"] == {"current_page": 1, "per_page": 15, "total": 2, "last_page": 1}


def test_members_of_a_missing_segment_is_404(api: Api) -> None:
    """Members of an unknown segment are a 404."""
    assert api.get("/contacts/segments/9999/members").status_code == 404
