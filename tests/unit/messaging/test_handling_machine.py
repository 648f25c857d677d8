"""Who answers a conversation, as a state machine (`engage_core.messaging.handling`), driven by Hypothesis.

Rules let the AI hand conversations over (with good and bad reasons) and resolve them (stamped now or
a little earlier, as a slow reply would), let people take them over (as nobody, as an active member,
an inactive one, a deleted one) and release them, let contacts write in, delete team members, and
let a fake clock run, all through the real `Services` over the in-memory fakes. A plain model
predicts each outcome: the states `ai`, `pending`, `human`, and the resolved conversation as the AI's
context reset.

After every step:

- each conversation's state (who answers, reason, assignee, context) agrees with the model;
- the AI may answer exactly the conversations handled by `ai`;
- `context_since` never moves backwards;
- the AI's context is exactly the messages that arrived after the last resolve, so a message in a
  resolved conversation starts a fresh one;
- `GET /conversations` filtered by each state lists exactly the conversations in it;
- the outbox has one `conversation.*` event per move, of the move's name, and none for a move that
  changed nothing or was refused.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta

import attrs
import pytest
from hypothesis import event, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, initialize, invariant, rule

from engage_core.contacts.model import ContactInput
from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging.conversations import ConversationFilter
from engage_core.messaging.messages import MessageDraft
from engage_core.services import Services
from engage_core.team.model import MemberDraft
from engage_core.testing import FakeClock, InMemoryUnitOfWorkFactory

from ..factories import START

ALL = PageRequest(per_page=100)
REASONS = st.sampled_from(["Wants a refund", "Asks for a person", "  Angry  ", "", "   "]) | st.builds(
    lambda length: "x" * length, st.sampled_from([1000, 1001])
)
"""Good reasons, and blank or too long ones (at most 1,000 characters)."""


@attrs.define
class ModelConversation:
    handled_by: str = "ai"
    reason: str | None = None
    assignee: int | None = None
    context_since: datetime | None = None
    messages: list[datetime] = attrs.Factory(list)


class HandlingMachine(RuleBasedStateMachine):
    contacts: Bundle[int] = Bundle("contacts")
    members: Bundle[int] = Bundle("members")

    def __init__(self) -> None:
        super().__init__()
        self.clock = FakeClock(START)
        self.uow = InMemoryUnitOfWorkFactory()
        self.services = Services.build(self.uow, self.clock)
        self.account = self.services.accounts.create("Acme").account.id
        self.model: dict[int, ModelConversation] = {}
        self.active: set[int] = set()
        self.moves: Counter[str] = Counter()
        self.seen_since: dict[int, datetime | None] = {}
        self.member_count = 0

    @initialize(target=contacts)
    def first_contact(self) -> int:
        return self.add_contact()

    @initialize(target=members)
    def first_member(self) -> int:
        return self.add_member(True)

    # -- rules -------------------------------------------------------------------------------------

    @rule(target=contacts)
    def add_contact(self) -> int:
        contact = self.services.contacts.create(self.account, ContactInput(name="Ada", type="instagram"))
        self.model[contact.id] = ModelConversation()
        return contact.id

    @rule(target=members, active=st.booleans())
    def add_member(self, active: bool) -> int:
        status = "active" if active else "inactive"
        self.member_count += 1
        draft = MemberDraft("Agent", f"member{self.member_count}@example.com", "agent", status)
        with self.uow.workspace(self.account) as tx:
            member = tx.team.add(draft, "fake$x$y", START)
            tx.commit()
        if active:
            self.active.add(member.id)
        return member.id

    @rule(contact=contacts)
    def contact_writes_in(self, contact: int) -> None:
        at = self.clock.advance(seconds=1)
        with self.uow.workspace(self.account) as tx:
            tx.messages.add(MessageDraft(contact, "inbound", "instagram", "Hello?", "delivered"), at)
            tx.commit()
        self.model[contact].messages.append(at)

    @rule(contact=contacts, reason=REASONS)
    def ai_hands_over(self, contact: int, reason: str) -> None:
        model = self.model[contact]
        if model.handled_by != "ai" or not reason.strip() or len(reason.strip()) > 1000:
            with pytest.raises(ValidationFailed):
                self.services.conversation_handling.hand_over(self.account, contact, reason)
            event(f"hand-over refused ({model.handled_by})")
            return
        self.services.conversation_handling.hand_over(self.account, contact, reason)
        model.handled_by, model.reason = "pending", reason.strip()
        self.moves["conversation.handed_over"] += 1

    @rule(contact=contacts, earlier=st.sampled_from([0, 0, 90]))
    def ai_resolves(self, contact: int, earlier: int) -> None:
        model = self.model[contact]
        stamp = self.clock.now() - timedelta(seconds=earlier)
        if model.handled_by != "ai":
            with pytest.raises(ValidationFailed):
                self.services.conversation_handling.resolve(self.account, contact, stamp)
            event(f"resolve refused ({model.handled_by})")
            return
        self.services.conversation_handling.resolve(self.account, contact, stamp)
        model.context_since = stamp if model.context_since is None else max(model.context_since, stamp)
        self.moves["conversation.resolved"] += 1
        event("resolved with an earlier stamp" if earlier else "resolved")

    @rule(contact=contacts, member=st.one_of(st.none(), members))
    def human_takes_over(self, contact: int, member: int | None) -> None:
        model = self.model[contact]
        if member is not None and member not in self.active:
            with pytest.raises(ValidationFailed):
                self.services.conversation_handling.take_over(self.account, contact, member)
            return
        self.services.conversation_handling.take_over(self.account, contact, member)
        if model.handled_by == "human" and (member is None or member == model.assignee):
            event("taken over again: no move")
            return
        event(f"taken over from {model.handled_by}")
        model.handled_by, model.assignee = "human", member
        self.moves["conversation.taken_over"] += 1

    @rule(contact=contacts)
    def human_releases(self, contact: int) -> None:
        model = self.model[contact]
        self.services.conversation_handling.release(self.account, contact)
        if model.handled_by == "ai":
            event("released while ai: no move")
            return
        event(f"released from {model.handled_by}")
        model.handled_by, model.reason, model.assignee = "ai", None, None
        self.moves["conversation.released"] += 1

    @rule(member=members)
    def delete_member(self, member: int) -> None:
        if member not in self.active:
            return  # inactive ones are never assigned; deleted ones are gone
        self.services.team.delete(self.account, member)
        self.active.discard(member)
        for model in self.model.values():
            if model.assignee == member:
                model.assignee = None
                event("assignee deleted")

    @rule(seconds=st.sampled_from([0, 30, 600]))
    def time_passes(self, seconds: int) -> None:
        self.clock.advance(seconds=seconds)

    # -- invariants --------------------------------------------------------------------------------

    @invariant()
    def states_agree_with_the_model(self) -> None:
        for contact, model in self.model.items():
            stored = self.services.conversation_handling.get(self.account, contact)
            assert (stored.handled_by, stored.reason, stored.assignee_id, stored.context_since) == (
                model.handled_by,
                model.reason,
                model.assignee,
                model.context_since,
            )

    @invariant()
    def the_ai_answers_exactly_where_it_handles(self) -> None:
        for contact, model in self.model.items():
            may = self.services.conversation_handling.may_ai_answer(self.account, contact)
            assert may is (model.handled_by == "ai")

    @invariant()
    def the_context_never_moves_backwards(self) -> None:
        for contact in self.model:
            since = self.services.conversation_handling.ai_context_since(self.account, contact)
            before = self.seen_since.get(contact)
            assert before is None or (since is not None and since >= before)
            self.seen_since[contact] = since

    @invariant()
    def the_ai_sees_only_what_came_after_the_last_resolve(self) -> None:
        for contact, model in self.model.items():
            since = self.services.conversation_handling.ai_context_since(self.account, contact)
            history = self.services.messages.for_contact(self.account, contact, None, ALL).items
            seen = sorted(m.created_at for m in history if since is None or m.created_at > since)
            assert seen == [at for at in model.messages if since is None or at > since]

    @invariant()
    def each_state_lists_its_conversations(self) -> None:
        for state in ("ai", "pending", "human"):
            found = self.services.messages.conversations(self.account, ConversationFilter(handled_by=state), ALL)
            expected = {c for c, m in self.model.items() if m.handled_by == state and m.messages}
            assert {s.contact_id for s in found.items} == expected
            assert found.total == len(expected)

    @invariant()
    def the_outbox_tells_every_move(self) -> None:
        names = Counter(e.name for e in self.uow.store.events(self.account) if e.name.startswith("conversation."))
        assert names == self.moves


HandlingMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=40, deadline=None)
test_handling_machine = HandlingMachine.TestCase
test_handling_machine.__doc__ = (
    "Only the people's moves take the AI's conversations; the AI acts only where it answers; its context "
    "only moves forward; every move is in the outbox."
)
