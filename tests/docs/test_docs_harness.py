"""The docs harness itself: the elided JSON, the comparison, shell commands and dates."""

from __future__ import annotations

import datetime as dt

import dates
import doc_json
import shell
from ids import IdMap


def test_elided_objects_accept_more_keys() -> None:
    """`{"id": 1, ...}` matches an object with more keys."""
    assert doc_json.differences(doc_json.parse('{"id": 1, ...}'), {"id": 5, "name": "Ada"}) == []


def test_full_objects_refuse_keys_the_docs_do_not_show() -> None:
    """An object without `...` must show every key of the response."""
    assert doc_json.differences(doc_json.parse('{"id": 1}'), {"id": 5, "name": "Ada"}) == [
        "$.name: in the response, not in the docs"
    ]


def test_messages_are_compared_by_value() -> None:
    """`message` must be the response's own words."""
    problems = doc_json.differences({"message": "Contact created."}, {"message": "Created."})
    assert problems == ["$.message: the docs say 'Contact created.', the response 'Created.'"]


def test_other_values_are_compared_by_type() -> None:
    """Ids and counts may differ; a string where the response has a number may not."""
    assert doc_json.differences({"id": 1, "n": "2"}, {"id": 9, "n": 2}) == ['$.n: the docs show "2", the response 2']


def test_a_response_comment_belongs_to_the_command_above() -> None:
    """`# {...}` lines under a command, continued until the JSON closes, are its response."""
    [command] = shell.commands('curl -s $API/x\n# {"success": true,\n#  "data": 1}\n# a remark\n')
    assert command.response == '{"success": true,"data": 1}'


def test_commands_continue_over_open_quotes() -> None:
    """A single-quoted body spanning lines is one command."""
    assert len(shell.commands("curl -d '{\n  \"a\": 1}'\ncurl x\n")) == 2


def test_a_dated_name_is_expanded() -> None:
    """`$(date +%F)`, as a dated backup's name uses it, becomes today's date."""
    expanded = shell.expand('engage db backup "engage-$(date +%F).db"', {})
    name = expanded.removeprefix('engage db backup "engage-').removesuffix('.db"')
    assert dt.date.fromisoformat(name).isoformat() == name


def test_a_listed_id_is_the_next_one_only_once() -> None:
    """An id a listing shows counts as the document's next of its kind, unless it is known already."""
    ids = IdMap(lambda kind: 99)
    ids.seen("department", 5)
    ids.created("department", 6)
    ids.seen("department", 5)
    ids.seen("department", 6)
    assert (ids.real("department", 1), ids.real("department", 2), ids.real("department", 3)) == (5, 6, 99)


def test_dates_move_by_whole_weeks_into_the_future() -> None:
    """The docs' Friday stays a Friday, after today."""
    moved = dates.shift("2026-12-04T10:00:00+01:00", today=dt.date(2027, 3, 10))
    day = dt.date.fromisoformat(moved[:10])
    assert (day.weekday(), day > dt.date(2027, 3, 10), moved[10:]) == (4, True, "T10:00:00+01:00")


def test_dates_that_are_not_days_are_left_alone() -> None:
    """An example of an invalid date stays invalid."""
    assert dates.shift("2026-02-30", today=dt.date(2027, 3, 10)) == "2026-02-30"
