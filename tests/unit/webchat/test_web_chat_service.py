"""WebChatService over the in-memory fakes: sessions, the message log and its sequence, the AI's answers
through the worker, take-over and release, ending, the widget and its key, and account scoping."""

from __future__ import annotations

import pytest

from engage_core.answering.turns import TurnDraft, TurnRequest
from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.webchat.service import token_hash
from engage_core.webchat.sessions import SYSTEM_NOTICES, SessionFilter, VisitorDetails
from engage_core.webchat.widgets import WidgetPatch

from .world import HOURS, World


@pytest.fixture
def world() -> World:
    return World()


def test_start_greets_the_visitor() -> None:
    """A new session is active, handled by the AI, and opens with the widget's greeting."""
    world = World()
    started = world.start()
    widget = world.chat.widget(world.account)
    assert (started.session.status, started.session.handled_by) == ("active", "ai")
    assert world.log(started) == [("bot", widget.greeting)]


def test_tokens_and_ids_are_unguessable(world: World) -> None:
    """Session ids and tokens are long random strings, distinct per session; only the token's hash is kept."""
    a, b = world.start(), world.start()
    assert a.session.session_id.startswith("wcs_") and len(a.session.session_id) > 20
    assert a.session.session_id != b.session.session_id and a.token != b.token
    assert len(a.token) >= 40
    with world.uow.workspace(world.account, readonly=True) as uow:
        assert uow.web_chat_sessions.by_token(token_hash(a.token)) == a.session
        assert uow.web_chat_sessions.by_token(a.token) is None


def test_ai_answers_from_the_knowledge_base(world: World) -> None:
    """A visitor message is answered by the default agent through the answer engine, by the worker."""
    started = world.start()
    world.chat.visitor_send(world.account, started.token, "When do you open?")
    assert world.log(started)[-1][0] == "visitor"
    world.work()
    assert world.log(started)[-1] == ("bot", HOURS)


def test_messages_carry_a_sequence(world: World) -> None:
    """Each message has the session's next seq; `messages_after` returns exactly what followed a seq."""
    started = world.start()
    for text in ("one", "two", "three"):
        world.chat.visitor_send(world.account, started.token, text)
    thread = world.chat.messages_after(world.account, started.session.session_id, 2)
    assert [(m.seq, m.message_text) for m in thread.messages] == [(3, "two"), (4, "three")]


def test_take_over_stops_the_ai(world: World) -> None:
    """After a take-over the AI answers nothing; a system notice tells the visitor."""
    started = world.start()
    world.chat.take_over(world.account, started.session.session_id)
    world.chat.visitor_send(world.account, started.token, "When do you open?")
    world.work()
    assert world.log(started)[-2:] == [("system", SYSTEM_NOTICES["human"]), ("visitor", "When do you open?")]


def test_take_over_while_the_engine_thinks_wins(world: World) -> None:
    """A take-over made while the engine prepares a reply drops that reply."""
    started = world.start()

    def take_over_meanwhile(request: TurnRequest) -> TurnDraft:
        world.chat.take_over(world.account, started.session.session_id)
        return TurnDraft("Too late.", "continue", (), 0.9)

    world.model.turn = take_over_meanwhile
    world.chat.visitor_send(world.account, started.token, "When do you open?")
    world.work()
    assert ("bot", "Too late.") not in world.log(started)
    assert world.chat.get(world.account, started.session.session_id).session.handled_by == "human"


def test_release_lets_the_ai_answer_again(world: World) -> None:
    """After release, the AI answers the next visitor message."""
    started = world.start()
    sid = started.session.session_id
    world.chat.take_over(world.account, sid)
    world.chat.release(world.account, sid)
    world.chat.visitor_send(world.account, started.token, "When do you open?")
    world.work()
    assert world.log(started)[-1] == ("bot", HOURS)


def test_handoff_moves_the_session_to_pending(world: World) -> None:
    """The engine's hand-off stores its reply and moves `handled_by` to `pending`."""
    started = world.start()
    world.model.turn = lambda request: TurnDraft("A colleague will help.", "handoff")
    world.chat.visitor_send(world.account, started.token, "Can I speak to someone?")
    world.work()
    thread = world.chat.get(world.account, started.session.session_id)
    assert thread.session.handled_by == "pending" and thread.session.human_requested_at is not None
    assert world.log(started)[-2:] == [("bot", "A colleague will help."), ("system", SYSTEM_NOTICES["pending"])]


def test_visitor_asks_for_a_person(world: World) -> None:
    """`request_human` moves the session to `pending`; the AI then answers nothing."""
    started = world.start()
    session = world.chat.request_human(world.account, started.token)
    world.chat.visitor_send(world.account, started.token, "Hello?")
    world.work()
    assert session.handled_by == "pending"
    assert world.log(started)[-1] == ("visitor", "Hello?")


def test_agent_message_is_logged_and_published(world: World) -> None:
    """An agent's message joins the log and the live feed is told."""
    started = world.start()
    sid = started.session.session_id
    message = world.chat.send(world.account, sid, "Hi, Sam here.")
    assert message.sender_type == "agent"
    assert (world.account, sid) in world.live.published


def test_agent_message_limit(world: World) -> None:
    """An agent's message over 4096 characters is refused."""
    started = world.start()
    with pytest.raises(ValidationFailed):
        world.chat.send(world.account, started.session.session_id, "x" * 4097)


def test_end_refuses_further_messages(world: World) -> None:
    """An ended session takes no message from either side and no move; ending again changes nothing."""
    started = world.start()
    sid = started.session.session_id
    ended = world.chat.end(world.account, sid)
    assert ended.status == "ended" and world.log(started)[-1] == ("system", SYSTEM_NOTICES["ended"])
    with pytest.raises(ValidationFailed):
        world.chat.send(world.account, sid, "Still there?")
    with pytest.raises(ValidationFailed):
        world.chat.visitor_send(world.account, started.token, "Hello?")
    with pytest.raises(ValidationFailed):
        world.chat.take_over(world.account, sid)
    assert world.chat.end(world.account, sid) == ended


def test_end_while_the_engine_thinks_drops_the_reply(world: World) -> None:
    """A session ended while the engine prepares a reply gets no reply."""
    started = world.start()

    def end_meanwhile(request: TurnRequest) -> TurnDraft:
        world.chat.visitor_end(world.account, started.token)
        return TurnDraft("Too late.", "continue", (), 0.9)

    world.model.turn = end_meanwhile
    world.chat.visitor_send(world.account, started.token, "When do you open?")
    world.work()
    assert world.log(started)[-1] == ("system", SYSTEM_NOTICES["ended"])


def test_events_of_a_session(world: World) -> None:
    """Starting, moving, ending and every message emit their events."""
    started = world.start()
    world.chat.take_over(world.account, started.session.session_id)
    world.chat.end(world.account, started.session.session_id)
    assert len(world.events("web_chat.session.started")) == 1
    assert len(world.events("web_chat.session.updated")) == 1
    assert len(world.events("web_chat.session.ended")) == 1
    assert len(world.events("web_chat.message.created")) == 3  # greeting, two notices


def test_find_filters_and_searches(world: World) -> None:
    """Sessions are filtered by status and handled_by and searched on the visitor's name, e-mail or phone."""
    ada = world.start(name="Ada Lovelace", email="ada@example.com")
    bob = world.start(name="Bob", phone="+15550001")
    world.chat.take_over(world.account, bob.session.session_id)
    page = PageRequest(1, 25)

    def ids(filters: SessionFilter) -> set[str]:
        return {s.session_id for s in world.chat.find(world.account, filters, page).items}

    assert ids(SessionFilter(handled_by="human")) == {bob.session.session_id}
    assert ids(SessionFilter(search="LOVELACE")) == {ada.session.session_id}
    assert ids(SessionFilter(search="5550")) == {bob.session.session_id}
    assert ids(SessionFilter(search="example.com")) == {ada.session.session_id}
    assert ids(SessionFilter(status="ended")) == set()


def test_another_accounts_session_is_not_found(world: World) -> None:
    """A session of another account is NotFound."""
    started = world.start()
    other = world.services.accounts.create("Other").account.id
    with pytest.raises(NotFound):
        world.chat.get(other, started.session.session_id)
    with pytest.raises(NotFound):
        world.chat.visitor_session(other, started.token)


def test_rotating_the_widget_key_revokes_the_old_one(world: World) -> None:
    """After rotation the old key finds no widget and the new one finds the workspace."""
    old = world.chat.widget(world.account)
    new = world.chat.rotate_key(world.account)
    assert new.widget_key != old.widget_key
    with pytest.raises(NotFound):
        world.chat.visitor_access(old.widget_key)
    assert world.chat.visitor_access(new.widget_key).account_id == world.account


def test_widget_settings_are_validated(world: World) -> None:
    """Origins are normalised; a colour must be #rrggbb."""
    widget = world.chat.update_widget(
        world.account, WidgetPatch(allowed_origins=["https://Shop.example/"], language="ar")
    )
    assert widget.allowed_origins == ("https://shop.example",) and widget.direction == "rtl"
    assert widget.allows("https://shop.example") and not widget.allows("https://evil.example")
    with pytest.raises(ValidationFailed):
        world.chat.update_widget(world.account, WidgetPatch(color="red"))
    with pytest.raises(ValidationFailed):
        world.chat.update_widget(world.account, WidgetPatch(allowed_origins=["https://shop.example/path"]))


def test_visitor_details_are_kept(world: World) -> None:
    """The visitor's optional name, e-mail and phone are stored; a bad e-mail is refused."""
    started = world.start()
    session = world.chat.visitor_update(
        world.account, started.token, VisitorDetails(name="Ada", email="ada@example.com")
    )
    assert (session.visitor_name, session.visitor_email) == ("Ada", "ada@example.com")
    with pytest.raises(ValidationFailed):
        world.chat.visitor_update(world.account, started.token, VisitorDetails(email="nope"))
