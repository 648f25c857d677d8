"""Campaigns and their audiences (SPEC 2 Campaign; SPEC 4 Campaigns)."""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from engage_core.campaigns.model import (
    AUDIENCE_IDS_MAX,
    CAMPAIGN_CHANNELS,
    MESSAGE_MAX,
    NAME_MAX,
    SEND_RATE_MAX,
    SEND_RATE_MIN,
)
from engage_core.campaigns.service import CampaignInput
from engage_core.campaigns.template import FIELDS

from ._text import blanks, broken, field, texts, too_long

_plain = texts(MESSAGE_MAX - 40, max_words=12).map(lambda text: text.replace("{", "(").replace("}", ")"))
placeholders = st.sampled_from(sorted(FIELDS)).map(lambda name: "{{" + name + "}}")
messages = st.builds(
    lambda head, placeholder, tail: f"{head} {placeholder} {tail}".strip(), _plain, st.just("") | placeholders, _plain
)
"""Campaign messages: text with at most one known placeholder (`{{first_name}}` ...)."""


def _subset(ids: Sequence[int]) -> st.SearchStrategy[tuple[int, ...]]:
    return (
        st.lists(st.sampled_from(list(ids)), max_size=min(len(ids), 10), unique=True).map(tuple) if ids else st.just(())
    )


@st.composite
def _audience(
    draw: st.DrawFn, contact_ids: Sequence[int], list_ids: Sequence[int], segment_ids: Sequence[int]
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    chosen = (draw(_subset(contact_ids)), draw(_subset(list_ids)), draw(_subset(segment_ids)))
    if any(chosen):
        return chosen
    pools = [(i, ids) for i, ids in enumerate((contact_ids, list_ids, segment_ids)) if ids]
    index, ids = draw(st.sampled_from(pools))
    one = (draw(st.sampled_from(list(ids))),)
    return tuple(one if i == index else () for i in range(3))  # type: ignore[return-value]


def campaign_inputs(
    contact_ids: Sequence[int] = (),
    list_ids: Sequence[int] = (),
    segment_ids: Sequence[int] = (),
    *,
    invalid: bool = False,
) -> st.SearchStrategy[CampaignInput]:
    """`POST /campaigns` bodies whose audience is drawn from existing contacts, lists and segments
    (give at least one id), starting when sent. `invalid=True` draws an empty audience, a list or
    segment not in the account, too many ids, a blank or long name or message, an unknown
    placeholder or channel, or a send rate out of range."""
    if not (contact_ids or list_ids or segment_ids):
        raise ValueError("campaign_inputs needs at least one contact, list or segment id")
    audience = _audience(contact_ids, list_ids, segment_ids)
    valid = st.builds(
        lambda name, channel, message, who, rate: CampaignInput(
            name, channel, message, contact_ids=who[0], list_ids=who[1], segment_ids=who[2], send_rate=rate
        ),
        texts(NAME_MAX),
        st.sampled_from(CAMPAIGN_CHANNELS),
        messages,
        audience,
        st.integers(SEND_RATE_MIN, SEND_RATE_MAX),
    )
    if not invalid:
        return valid
    missing = 10**9
    return broken(
        valid,
        st.just({"contact_ids": (), "list_ids": (), "segment_ids": ()}),
        field("list_ids", st.just((missing,))),
        field("segment_ids", st.just((missing,))),
        field("contact_ids", st.just(tuple(range(1, AUDIENCE_IDS_MAX + 2)))),
        field("name", blanks() | too_long(NAME_MAX)),
        field("message", blanks() | too_long(MESSAGE_MAX) | st.sampled_from(["Hi {{nickname}}", "Hi {{name"])),
        field("channel", st.sampled_from(["sms", "fax", ""])),
        field("send_rate", st.sampled_from([SEND_RATE_MIN - 1, SEND_RATE_MAX + 1])),
    )
