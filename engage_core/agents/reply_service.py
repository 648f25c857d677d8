"""Automatic replies: the AI agent answers a contact's inbound message through the contact's channel.

`queue` is told of every new inbound message (`MessageService.when_received`), in the transaction
that stores it, and queues `REPLY_JOB` for it there; the engine never runs inside the inbound
request. The job (`reply`) answers when everything allows it, and otherwise succeeds doing nothing:

- the plan has `ai_agents`, the contact is not blacklisted, its conversation is handled by the AI
  (`ai`: not `pending`, not taken over by a human), an active agent answers it (assigned, or the
  default), and no newer inbound message of the contact arrived meanwhile (that one's job answers
  both, the earlier one being in its history);
- the engine is shown the conversation since the AI's context starts (its last resolve), inbound
  messages as `user`, outbound ones as `assistant`, oldest first, at most `HISTORY_LIMIT`;
- the reply is sent with `MessageService.send` (an outbound message, `message.sent`), and recorded
  as an `AiReply` in the transaction that stores it, with the turn's move: `handoff` hands the
  conversation over (`pending`, the reply being the short hand-over message), `resolve` resets the
  AI's context. Just before recording, in that transaction, the conversation is read again: a human
  who took it over while the engine was thinking wins, and nothing is sent.

The memory step (an agent with `memory_agent_instructions` only, `engage_core.agents.memories`):
before the engine answers, the model is asked for the facts the message states about the customer;
the facts kept so far and the new ones go into the turn's prompt, and the new ones are stored in the
transaction that records the reply (so once per inbound message, however often the job runs).

The booking step (an agent with `booking_agent_instructions`, a plan with `booking`,
`engage_core.agents.booking_step`): before the engine, a message asking for a booking gets free
slots, and one picking an offered slot gets it booked; that move is then the reply. The offer is
recorded with the reply; a booking made before a crash is found again by the retry, not made twice.

Exactly once: a job run again (a crash, a lost lease) finds the recorded reply and sends nothing,
unless its outbound message is still `pending` (the crash came between storing and sending it), in
which case that message is sent (`MessageService.deliver`).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs

from engage_core.agents.booking_step import BOOKING_FEATURE, BookingMove, booking_instructions, booking_move
from engage_core.agents.memories import memory_instructions, new_facts
from engage_core.agents.memory_service import keep
from engage_core.agents.model import AiAgent
from engage_core.agents.personas import persona_of
from engage_core.agents.replies import (
    AI_AGENTS_FEATURE,
    HISTORY_LIMIT,
    REPLY_JOB,
    AiReply,
    AiReplyDraft,
    reply_key,
)
from engage_core.agents.service import AiAgentService
from engage_core.answering.booking import BookingDesk, SlotOffer
from engage_core.answering.chat import ChatMessage
from engage_core.answering.engine import AnswerEngine
from engage_core.answering.memory import MemoryRequest
from engage_core.answering.ports import LanguageModel
from engage_core.answering.product_images import ProductImages
from engage_core.answering.tokens import estimate_usage
from engage_core.answering.turns import Turn
from engage_core.jobs.model import JobRequest
from engage_core.jobs.runner import Handler, JobContext
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, PlanLimitReached, ValidationFailed
from engage_core.kernel.pagination import PageRequest
from engage_core.messaging import handling as rules
from engage_core.messaging.gateway import Attachment
from engage_core.messaging.handling import ConversationHandling
from engage_core.messaging.handling_service import decide_in, hand_over_move
from engage_core.messaging.message_service import MessageService, SendInput
from engage_core.messaging.messages import Message
from engage_core.plans.ports import FeatureGate
from engage_core.unit_of_work import UnitOfWorkFactory, WorkspaceUnitOfWork

REPLIED = "replied"
RESENT = "resent"
ALREADY = "already_replied"
GONE = "gone"
NO_FEATURE = "plan_lacks_ai_agents"
BLACKLISTED = "blacklisted"
NOT_AI = "not_handled_by_ai"
NO_AGENT = "no_active_agent"
SUPERSEDED = "newer_message"
LIMIT = "plan_limit"
OUTCOMES: tuple[str, ...] = (
    REPLIED,
    RESENT,
    ALREADY,
    GONE,
    NO_FEATURE,
    BLACKLISTED,
    NOT_AI,
    NO_AGENT,
    SUPERSEDED,
    LIMIT,
)
"""What a run of the reply job did: replied, sent a stored reply again, or why it did nothing."""

_HISTORY_PAGE = PageRequest(1, HISTORY_LIMIT + 10)
"""The newest messages read for the history: a few more than shown, for those after the answered one."""


@attrs.frozen
class CitedPassage:
    """A knowledge-base passage an automatic reply cited: the chunk, its entry and its text."""

    chunk_id: int
    entry_id: int
    entry_title: str
    content: str


class _Refused(Exception):
    """Raised inside the recording transaction: nothing is stored or sent, for `outcome`."""

    def __init__(self, outcome: str) -> None:
        super().__init__(outcome)
        self.outcome = outcome


@attrs.frozen
class _Conversation:
    inbound: Message
    history: tuple[ChatMessage, ...]
    pending: SlotOffer | None = None


@attrs.frozen
class _Memory:
    """What the memory step found: the instructions it adds to the turn, and the facts to store."""

    instructions: tuple[str, ...] = ()
    stated: tuple[str, ...] = ()
    fresh: tuple[str, ...] = ()


class AutoReplyService:
    """The AI agent's automatic replies to inbound messages."""

    def __init__(
        self,
        uow: UnitOfWorkFactory,
        clock: Clock,
        features: FeatureGate,
        agents: AiAgentService,
        messages: MessageService,
        engine: AnswerEngine,
        model: LanguageModel,
        desk: BookingDesk,
        images: ProductImages | None = None,
    ) -> None:
        """`images` finds the product image a reply may carry (none without it)."""
        self._uow = uow
        self._clock = clock
        self._features = features
        self._agents = agents
        self._messages = messages
        self._engine = engine
        self._model = model
        self._desk = desk
        self._images = images

    def queue(self, uow: WorkspaceUnitOfWork, message: Message, now: datetime) -> None:
        """Queue the reply to a new inbound message, in `uow`'s transaction (the `ReceivedHook` of
        `MessageService`). A workspace without any agent queues nothing: it never pays for a job per
        message. (Counting takes no lock, where reading the default agent in a write unit of work
        would lock its row and queue every inbound message of the account behind it.)"""
        contact = uow.contacts.get(message.contact_id)
        if contact is None or (contact.ai_agent_id is None and uow.ai_agents.count() == 0):
            return
        request = JobRequest(REPLY_JOB, {"message_id": message.id}, key=reply_key(message.id))
        uow.jobs.enqueue(request, now)

    def recorded(self, account_id: int, inbound_message_id: int) -> AiReply | None:
        """The automatic reply recorded for an inbound message of the account, or None."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            return uow.ai_replies.by_inbound(inbound_message_id)

    def cited(self, account_id: int, outbound_message_ids: Sequence[int]) -> dict[int, list[CitedPassage]]:
        """What each automatic reply among these outbound messages drew on: the knowledge passages
        it cited, in the order cited, by outbound message id. A message that is not an automatic
        reply, or cited nothing, is left out; a passage deleted since is left out of its list."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            cited: dict[int, list[CitedPassage]] = {}
            titles: dict[int, str | None] = {}
            for reply in uow.ai_replies.for_outbound(outbound_message_ids):
                passages = []
                for chunk_id in reply.citations:
                    chunk = uow.knowledge_chunks.get(chunk_id)
                    if chunk is None:
                        continue
                    if chunk.knowledge_base_id not in titles:
                        entry = uow.knowledge_base.get(chunk.knowledge_base_id)
                        titles[chunk.knowledge_base_id] = None if entry is None else entry.title
                    title = titles[chunk.knowledge_base_id]
                    if title is not None:
                        passages.append(CitedPassage(chunk.id, chunk.knowledge_base_id, title, chunk.content))
                if passages:
                    cited[reply.outbound_message_id] = passages
            return cited

    def reply(self, account_id: int, inbound_message_id: int) -> str:
        """Answer the inbound message when everything allows it (see the module notes); one of
        `OUTCOMES`. Safe to run again: a recorded reply is never sent twice."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            done = uow.ai_replies.by_inbound(inbound_message_id)
            answer = None if done is None else uow.messages.get(done.outbound_message_id)
            # The image is found again from the citations recorded with the reply.
            image = None if done is None else self._image(uow, done.citations)
        if done is not None:
            if answer is None or answer.status != "pending":
                return ALREADY
            self._messages.deliver(account_id, answer.id, image)
            return RESENT
        if not self._features.allows(account_id, AI_AGENTS_FEATURE):
            return NO_FEATURE
        checked = self._check(account_id, inbound_message_id)
        if isinstance(checked, str):
            return checked
        try:
            agent = self._agents.agent_for_contact(account_id, checked.inbound.contact_id)
        except NotFound:
            return GONE
        if agent is None:
            return NO_AGENT
        memory = self._remember(account_id, agent, checked.inbound)
        booking = (agent.booking_agent_instructions or "").strip()
        if booking and self._features.allows(account_id, BOOKING_FEATURE):
            inbound = checked.inbound
            move = booking_move(self._desk, account_id, inbound.contact_id, inbound.content, checked.pending)
            if move is not None:
                turn = Turn(move.reply, move.action, (), 1.0, estimate_usage([inbound.content], move.reply))
                return self._send(account_id, inbound, agent, turn, memory, move)
            extra = (*memory.instructions, booking_instructions(booking))
        else:
            extra = memory.instructions
        turn = self._engine.answer(
            account_id,
            persona_of(agent),
            checked.history,
            checked.inbound.content,
            extra_instructions=extra,
            statements=memory.stated,
        )
        return self._send(account_id, checked.inbound, agent, turn, memory)

    def _remember(self, account_id: int, agent: AiAgent, inbound: Message) -> _Memory:
        """The memory step (see the module notes); nothing for an agent without memory instructions."""
        instructions = (agent.memory_agent_instructions or "").strip()
        if not instructions:
            return _Memory()
        with self._uow.workspace(account_id, readonly=True) as uow:
            known = uow.contact_memories.for_contact(inbound.contact_id)
        facts = tuple(m.fact for m in known)
        stated = self._model.extract_memories(MemoryRequest(instructions, facts, inbound.content))
        fresh = new_facts(stated, known)
        return _Memory((memory_instructions(instructions, (*facts, *fresh)),), tuple(stated), fresh)

    def _check(self, account_id: int, inbound_message_id: int) -> _Conversation | str:
        """The message and its history when the AI may answer it; otherwise why not."""
        with self._uow.workspace(account_id, readonly=True) as uow:
            inbound = uow.messages.get(inbound_message_id)
            if inbound is None or inbound.direction != "inbound":
                return GONE
            contact = uow.contacts.get(inbound.contact_id)
            if contact is None:
                return GONE
            if contact.blacklisted:
                return BLACKLISTED
            handling = _handling(uow, contact.id)
            if not handling.ai_may_answer:
                return NOT_AI
            newest = uow.messages.for_contact(contact.id, "inbound", PageRequest(1, 1)).items
            if newest and newest[0].id != inbound.id:
                return SUPERSEDED
            recent = uow.messages.for_contact(contact.id, None, _HISTORY_PAGE).items
            latest = uow.ai_replies.latest(contact.id)
        return _Conversation(inbound, _history(recent, inbound, handling), _pending(latest, handling))

    def _send(
        self,
        account_id: int,
        inbound: Message,
        agent: AiAgent,
        turn: Turn,
        memory: _Memory,
        move: BookingMove | None = None,
    ) -> str:
        def record(uow: WorkspaceUnitOfWork, outbound: Message) -> None:
            # Read again in the storing transaction: a take-over while the engine thought wins.
            if uow.ai_replies.by_inbound(inbound.id) is not None:
                raise _Refused(ALREADY)
            if not _handling(uow, inbound.contact_id).ai_may_answer:
                raise _Refused(NOT_AI)
            now = outbound.created_at
            if turn.action == "handoff":
                decide_in(uow, inbound.contact_id, hand_over_move(_reason(agent, inbound)), now)
            elif turn.action == "resolve":
                decide_in(uow, inbound.contact_id, rules.resolve, now)
            draft = AiReplyDraft(
                inbound.contact_id,
                inbound.id,
                outbound.id,
                turn.action,
                turn.citations,
                turn.confidence,
                offer=None if move is None else move.offer,
                booking_id=None if move is None else move.booking_id,
            )
            uow.ai_replies.add(draft, now)
            keep(uow, inbound.contact_id, memory.fresh, inbound.id, now)

        with self._uow.workspace(account_id, readonly=True) as uow:
            image = self._image(uow, turn.citations)
        try:
            self._messages.send(account_id, SendInput(inbound.contact_id, turn.reply, image), along=record)
        except _Refused as refused:
            return refused.outcome
        except PlanLimitReached:
            return LIMIT
        except NotFound:
            return GONE
        except ValidationFailed:  # the conversation's move was refused: a human owns it now
            return NOT_AI
        return REPLIED

    def _image(self, uow: WorkspaceUnitOfWork, citations: Sequence[int]) -> Attachment | None:
        return None if self._images is None or not citations else self._images.for_citations(uow, citations)


def reply_job(replies: AutoReplyService) -> Handler:
    """The handler of `REPLY_JOB`: answer the inbound message its payload names."""

    def run(context: JobContext) -> None:
        replies.reply(context.account_id, int(str(context.payload["message_id"])))

    return run


# -- helpers -----------------------------------------------------------------------------------


def _handling(uow: WorkspaceUnitOfWork, contact_id: int) -> ConversationHandling:
    stored = uow.conversation_handling.get(contact_id)
    return ConversationHandling(contact_id) if stored is None else stored


def _history(recent: Sequence[Message], inbound: Message, handling: ConversationHandling) -> tuple[ChatMessage, ...]:
    """The conversation before `inbound` since the AI's context starts, oldest first: what the
    customer sent as `user`, what went out as `assistant` (failed sends never reached them)."""
    since = handling.context_since
    before = [
        m
        for m in recent
        if (m.created_at, m.id) < (inbound.created_at, inbound.id)
        and (since is None or m.created_at > since)
        and m.status != "failed"
    ]
    before.sort(key=lambda m: (m.created_at, m.id))
    return tuple(
        ChatMessage("user" if m.direction == "inbound" else "assistant", m.content) for m in before[-HISTORY_LIMIT:]
    )


def _pending(latest: AiReply | None, handling: ConversationHandling) -> SlotOffer | None:
    """The slots the AI's latest reply offered, when that reply is in its current context."""
    if latest is None or latest.offer is None:
        return None
    since = handling.context_since
    return latest.offer if since is None or latest.created_at > since else None


def _reason(agent: AiAgent, inbound: Message) -> str:
    return f"{agent.name} handed the conversation over after: {inbound.content}"
