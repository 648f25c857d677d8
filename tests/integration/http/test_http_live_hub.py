"""`LiveHub`'s account-wide listeners (`EVERY_TOPIC`): woken by every notice of their account, and
by no other account's."""

from __future__ import annotations

import asyncio

from engage_http.webchat.live import EVERY_TOPIC, LiveHub


def woken(publish: tuple[int, str], listen: tuple[int, str]) -> bool:
    """Whether a listener of `listen` is woken by a notice of `publish`."""

    async def run() -> bool:
        hub = LiveHub()
        with hub.subscribe(*listen) as wake:
            hub.publish(*publish)
            try:
                await asyncio.wait_for(wake.wait(), 2.0)
            except TimeoutError:
                return False
            return True

    return asyncio.run(run())


def test_an_account_wide_listener_hears_a_web_chat_session() -> None:
    """A notice of one session wakes the account's listener of every topic."""
    assert woken((7, "wcs_abc"), (7, EVERY_TOPIC))


def test_an_account_wide_listener_hears_the_inbox() -> None:
    """The channels' inbox notice wakes it too."""
    assert woken((7, "inbox"), (7, EVERY_TOPIC))


def test_another_accounts_notice_wakes_nobody_here() -> None:
    """A notice of account 8 leaves account 7's listeners asleep."""
    assert not woken((8, "inbox"), (7, EVERY_TOPIC))


def test_a_session_listener_still_hears_only_its_session() -> None:
    """A session's stream is not woken by the inbox's notice."""
    assert not woken((7, "inbox"), (7, "wcs_abc"))
