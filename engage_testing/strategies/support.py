"""Support tickets and their replies (SPEC 2 Support ticket; SPEC 4 Tickets)."""

from __future__ import annotations

from hypothesis import strategies as st

from engage_core.support.ticket_service import TicketInput
from engage_core.support.tickets import BODY_MAX, PRIORITIES, SUBJECT_MAX

from ._text import blanks, broken, field, texts, too_long


def ticket_inputs(*, invalid: bool = False) -> st.SearchStrategy[TicketInput]:
    """`POST /tickets` bodies, filed under the default department; `invalid=True` draws a blank or
    long subject or body, or an unknown priority."""
    valid = st.builds(
        TicketInput,
        subject=texts(SUBJECT_MAX),
        body=texts(BODY_MAX, max_words=20),
        priority=st.none() | st.sampled_from(PRIORITIES),
    )
    if not invalid:
        return valid
    return broken(
        valid,
        field("subject", blanks() | too_long(SUBJECT_MAX)),
        field("body", blanks() | too_long(BODY_MAX)),
        field("priority", st.sampled_from(["urgent", "HIGH"])),
    )


def ticket_replies(*, invalid: bool = False) -> st.SearchStrategy[str]:
    """The text of a reply to an open ticket; `invalid=True` draws blank and too long ones."""
    return blanks() | too_long(BODY_MAX) if invalid else texts(BODY_MAX, max_words=20)
