"""Page requests and pages: defaults, limits, and the arithmetic every list endpoint shares."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import CONTACTS, LIST_MEMBERS, SEGMENT_MEMBERS, Page, PageRequest, paginate

page_requests = st.builds(PageRequest, page=st.integers(1, 50), per_page=st.integers(1, 100))


def test_build_applies_the_defaults() -> None:
    """No page and no per_page give page 1 and the endpoint's default size."""
    assert PageRequest.build(None, None, default=15, maximum=100) == PageRequest(page=1, per_page=15)


def test_build_keeps_valid_values() -> None:
    """Values within the limits are kept as given."""
    assert PageRequest.build(3, 40, default=15, maximum=100) == PageRequest(page=3, per_page=40)


def test_build_clamps_per_page_to_the_maximum() -> None:
    """A per_page above the maximum is lowered to the maximum, not rejected."""
    assert PageRequest.build(1, 1000, default=15, maximum=100).per_page == 100


def test_build_accepts_per_page_equal_to_the_maximum() -> None:
    """per_page exactly at the maximum is kept."""
    assert PageRequest.build(1, 100, default=15, maximum=100).per_page == 100


@pytest.mark.parametrize("page", [0, -1])
def test_build_rejects_page_below_one(page: int) -> None:
    """A page below 1 is a validation failure on `page`."""
    with pytest.raises(ValidationFailed) as caught:
        PageRequest.build(page, None, default=15, maximum=100)
    assert list(caught.value.errors) == ["page"]


@pytest.mark.parametrize("per_page", [0, -5])
def test_build_rejects_per_page_below_one(per_page: int) -> None:
    """A per_page below 1 is a validation failure on `per_page`."""
    with pytest.raises(ValidationFailed) as caught:
        PageRequest.build(None, per_page, default=15, maximum=100)
    assert list(caught.value.errors) == ["per_page"]


def test_build_reports_both_bad_values_at_once() -> None:
    """A bad page and a bad per_page are reported together."""
    with pytest.raises(ValidationFailed) as caught:
        PageRequest.build(0, 0, default=15, maximum=100)
    assert set(caught.value.errors) == {"page", "per_page"}


def test_offset_of_the_first_page_is_zero() -> None:
    """Page 1 starts at offset 0."""
    assert PageRequest(page=1, per_page=15).offset == 0


def test_offset_skips_the_earlier_pages() -> None:
    """Page 3 of 15 starts after 30 items."""
    assert PageRequest(page=3, per_page=15).offset == 30


def test_empty_result_has_one_page() -> None:
    """No items still make a first (and last) page."""
    assert Page(items=[], request=PageRequest(), total=0).last_page == 1


def test_page_map_keeps_request_and_total() -> None:
    """`Page.map` transforms the items and keeps the paging facts."""
    page = Page(items=[1, 2], request=PageRequest(page=2, per_page=2), total=5).map(str)
    assert page == Page(items=["1", "2"], request=PageRequest(page=2, per_page=2), total=5)


def test_spec_page_limits() -> None:
    """Contacts, list members and segment members default to 15 and cap at 100 (SPEC 8)."""
    assert {(lim.default, lim.maximum) for lim in (CONTACTS, LIST_MEMBERS, SEGMENT_MEMBERS)} == {(15, 100)}


@given(total=st.integers(0, 10_000), request=page_requests)
def test_last_page_is_the_ceiling_of_total_over_per_page(total: int, request: PageRequest) -> None:
    """For any total ≥ 0, `last_page == max(1, ceil(total / per_page))`."""
    assert Page(items=[], request=request, total=total).last_page == max(1, math.ceil(total / request.per_page))


@given(items=st.lists(st.integers(), max_size=60), per_page=st.integers(1, 25))
def test_all_pages_together_give_back_every_item_once(items: list[int], per_page: int) -> None:
    """Concatenating pages 1..last_page of `paginate` yields the items exactly once, in order."""
    last = paginate(items, PageRequest(page=1, per_page=per_page)).last_page
    joined = [x for n in range(1, last + 1) for x in paginate(items, PageRequest(page=n, per_page=per_page)).items]
    assert joined == items


@given(items=st.lists(st.integers(), max_size=60), per_page=st.integers(1, 25), beyond=st.integers(1, 5))
def test_pages_beyond_the_last_are_empty(items: list[int], per_page: int, beyond: int) -> None:
    """A page past `last_page` has no items but still reports the total."""
    last = paginate(items, PageRequest(page=1, per_page=per_page)).last_page
    page = paginate(items, PageRequest(page=last + beyond, per_page=per_page))
    assert (list(page.items), page.total) == ([], len(items))


@given(items=st.lists(st.integers(), max_size=60), request=page_requests)
def test_every_page_reports_the_full_total(items: list[int], request: PageRequest) -> None:
    """`total` is the count across all pages, whichever page is asked for."""
    assert paginate(items, request).total == len(items)


@given(items=st.lists(st.integers(), max_size=60), request=page_requests)
def test_no_page_is_longer_than_per_page(items: list[int], request: PageRequest) -> None:
    """A page never holds more than `per_page` items."""
    assert len(paginate(items, request).items) <= request.per_page


@given(
    page=st.one_of(st.none(), st.integers(1, 10**6)),
    per_page=st.one_of(st.none(), st.integers(1, 10**6)),
    default=st.integers(1, 100),
    maximum=st.integers(100, 200),
)
def test_built_requests_are_always_within_limits(
    page: int | None, per_page: int | None, default: int, maximum: int
) -> None:
    """Any accepted request has page ≥ 1 and 1 ≤ per_page ≤ maximum."""
    request = PageRequest.build(page, per_page, default=default, maximum=maximum)
    assert request.page >= 1
    assert 1 <= request.per_page <= maximum
