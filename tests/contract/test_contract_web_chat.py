"""Web chat: sessions, their message logs, widgets and the key directory, through the repositories and
WebChatService, on every adapter."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from support import NOW

from engage_core.kernel.errors import NotFound
from engage_core.kernel.events import DomainEvent
from engage_core.kernel.pagination import PageRequest
from engage_core.services import Services
from engage_core.testing import FakeClock
from engage_core.unit_of_work import UnitOfWorkFactory
from engage_core.webchat.service import token_hash
from engage_core.webchat.sessions import MessageDraft, SessionFilter, VisitorDetails
from engage_core.webchat.widgets import WidgetPatch

PAGE = PageRequest(1, 25)


@pytest.fixture
def other(make_account: Callable[..., int]) -> int:
    return make_account("Other")


def test_started_session_reads_back_equal(services: Services, account: int) -> None:
    """A session's fields and its greeting survive the round trip."""
    visitor = VisitorDetails("Ada", "ada@example.com", "+15550001", "127.0.0.1", "https://shop.example/", None)
    started = services.web_chat.start(account, visitor)
    thread = services.web_chat.get(account, started.session.session_id)
    assert thread.session == started.session
    assert list(thread.messages) == list(started.messages)


def test_session_is_found_by_its_token_hash_only(uow: UnitOfWorkFactory, services: Services, account: int) -> None:
    """`by_token` finds the session by the token's hash, not by the token itself."""
    started = services.web_chat.start(account, VisitorDetails())
    with uow.workspace(account, readonly=True) as unit:
        assert unit.web_chat_sessions.by_token(token_hash(started.token)) == started.session
        assert unit.web_chat_sessions.by_token(started.token) is None


def test_messages_after_a_seq(services: Services, account: int, clock: FakeClock) -> None:
    """Messages come in `seq` order; `messages_after` returns those after the given seq, at most `limit`."""
    started = services.web_chat.start(account, VisitorDetails())
    for text in ("a", "b", "c"):
        clock.advance(seconds=1)
        services.web_chat.visitor_send(account, started.token, text)
    sid = started.session.session_id
    assert [m.message_text for m in services.web_chat.messages_after(account, sid, 2).messages] == ["b", "c"]
    assert [m.seq for m in services.web_chat.messages_after(account, sid, 0, limit=2).messages] == [1, 2]
    assert services.web_chat.get(account, sid).session.last_seq == 4


def test_find_filters_searches_and_orders(services: Services, account: int, clock: FakeClock) -> None:
    """Most recently active first; filters by status and handled_by; search on name, e-mail or phone."""
    ada = services.web_chat.start(account, VisitorDetails(name="Ada Lovelace", email="ada@example.com"))
    clock.advance(seconds=1)
    bob = services.web_chat.start(account, VisitorDetails(name="Bob", phone="+15550001"))
    clock.advance(seconds=1)
    services.web_chat.take_over(account, ada.session.session_id)

    def ids(filters: SessionFilter) -> list[str]:
        return [s.session_id for s in services.web_chat.find(account, filters, PAGE).items]

    a, b = ada.session.session_id, bob.session.session_id
    assert ids(SessionFilter()) == [a, b]
    assert ids(SessionFilter(handled_by="human")) == [a]
    assert ids(SessionFilter(handled_by="ai")) == [b]
    assert ids(SessionFilter(search="lovelace")) == [a]
    assert ids(SessionFilter(search="5550")) == [b]
    assert ids(SessionFilter(search="%")) == []
    assert ids(SessionFilter(status="ended")) == []
    page = services.web_chat.find(account, SessionFilter(), PageRequest(2, 1))
    assert page.total == 2 and [s.session_id for s in page.items] == [b]


def test_moves_and_end_are_stored_with_their_events(
    services: Services, account: int, outbox_events: Callable[..., list[DomainEvent]]
) -> None:
    """Take-over and end are stored, and their events reach the outbox."""
    started = services.web_chat.start(account, VisitorDetails())
    sid = started.session.session_id
    services.web_chat.take_over(account, sid)
    services.web_chat.end(account, sid)
    session = services.web_chat.get(account, sid).session
    assert (session.status, session.handled_by) == ("ended", "human")
    assert session.human_took_over_at is not None and session.ended_at is not None
    names = [e.name for e in outbox_events(account) if e.name.startswith("web_chat.")]
    assert names.count("web_chat.session.ended") == 1 and names.count("web_chat.session.updated") == 1


def test_a_visitor_message_is_answered_once(uow: UnitOfWorkFactory, services: Services, account: int) -> None:
    """`answer_to` finds the bot message answering a visitor message."""
    started = services.web_chat.start(account, VisitorDetails())
    asked = services.web_chat.visitor_send(account, started.token, "Hi")
    with uow.workspace(account) as unit:
        session = unit.web_chat_sessions.get(started.session.session_id)
        assert session is not None
        answer = unit.web_chat_sessions.add_message(session, MessageDraft("bot", "Hello", reply_to=asked.id), 3, NOW)
        unit.commit()
    with uow.workspace(account, readonly=True) as unit:
        assert unit.web_chat_sessions.answer_to(asked.id) == answer
        assert unit.web_chat_sessions.session_of(asked.id) == session


def test_a_messages_image_reads_back(uow: UnitOfWorkFactory, services: Services, account: int) -> None:
    """A bot message stored with an image address reads back with it."""
    started = services.web_chat.start(account, VisitorDetails())
    url = "https://files.example.com/media/ab/tea.png"
    with uow.workspace(account) as unit:
        session = unit.web_chat_sessions.get(started.session.session_id)
        assert session is not None
        added = unit.web_chat_sessions.add_message(session, MessageDraft("bot", "Our tea", media_url=url), 2, NOW)
        unit.commit()

    thread = services.web_chat.get(account, started.session.session_id)

    assert (added.media_url, thread.messages[-1].media_url) == (url, url)


def test_another_accounts_session_is_invisible(services: Services, account: int, other: int) -> None:
    """Another account finds the session neither by id nor by token."""
    started = services.web_chat.start(account, VisitorDetails())
    with pytest.raises(NotFound):
        services.web_chat.get(other, started.session.session_id)
    with pytest.raises(NotFound):
        services.web_chat.visitor_session(other, started.token)
    assert services.web_chat.find(other, SessionFilter(), PAGE).total == 0


def test_widget_settings_round_trip(services: Services, account: int) -> None:
    """Widget settings are stored, and the key directory finds the workspace by its current key only."""
    first = services.web_chat.widget(account)
    assert services.web_chat.widget(account) == first
    updated = services.web_chat.update_widget(
        account, WidgetPatch(allowed_origins=["https://shop.example"], color="#112233", language="ar")
    )
    assert services.web_chat.widget(account) == updated
    assert services.web_chat.visitor_access(first.widget_key).account_id == account
    rotated = services.web_chat.rotate_key(account)
    with pytest.raises(NotFound):
        services.web_chat.visitor_access(first.widget_key)
    assert services.web_chat.visitor_access(rotated.widget_key).widget == rotated


def test_analytics_read_the_same_on_every_adapter(services: Services, account: int, clock: FakeClock) -> None:
    """Sessions, engagement, endings, messages by sender and unique visitors are counted alike."""
    ada = services.web_chat.start(account, VisitorDetails(email="ada@example.com"))
    services.web_chat.start(account, VisitorDetails(email="ADA@example.com"))
    services.web_chat.visitor_send(account, ada.token, "Hi")
    services.web_chat.end(account, ada.session.session_id)
    clock.advance(seconds=1)
    stats = services.web_chat.analytics(account, "week")
    assert (stats.total_chats, stats.engaged_chats, stats.completed_chats, stats.active_chats) == (2, 1, 1, 1)
    assert (stats.visitor_messages, stats.bot_messages, stats.total_messages) == (1, 2, 3)
    assert stats.unique_visitors == 1 and sum(stats.chart_data.values()) == 2
