"""A web chat session's `status` × `handled_by` as a state machine over the in-memory fakes: the kit's
:class:`engage_testing.machines.web_chat.WebChatSessionMachine`, whose module says what it checks."""

from __future__ import annotations

from hypothesis import settings

from engage_testing.machines.web_chat import WebChatSessionMachine

WebChatSessionMachine.TestCase.settings = settings(max_examples=40, stateful_step_count=25, deadline=None)
test_web_chat_session_machine = WebChatSessionMachine.TestCase
test_web_chat_session_machine.__doc__ = (
    "A session moves only as its transition table says, the AI answers only while it handles the "
    "session, and the message log has no gap."
)
