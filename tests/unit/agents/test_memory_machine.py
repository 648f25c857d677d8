"""Contact memories as a state machine, driven by Hypothesis: customers state facts in inbound
messages answered by the reply job (sometimes run again), people add and delete facts, and the
contact's memories always match a plain model of them.

The model is a list of facts, oldest first: a fact not yet held (compared without case) is added
at the end, and the oldest are dropped beyond the limit; a deleted fact goes. After every step:

- the stored facts are the model's, in order;
- no fact is held twice (without case), and there are at most `MEMORY_LIMIT`;
- every memory from a message names an inbound message of the contact.
"""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from engage_core.agents.memories import MEMORY_LIMIT
from engage_core.agents.model import AgentPatch
from engage_core.kernel.errors import ValidationFailed
from engage_core.messaging.messages import Message

from .test_auto_replies import World, scripted

ITEMS = [f"item{n}" for n in range(70)]
"""What customers say they like: `I like item7.` is kept as `Likes item7`."""


class MemoryMachine(RuleBasedStateMachine):
    @initialize()
    def workspace(self) -> None:
        self.world = World()
        self.world.services.ai_agents.update(
            self.world.account, self.world.agent.id, AgentPatch(memory_agent_instructions="Remember likes.")
        )
        scripted(self.world, "continue", "Noted.")
        self.model: list[str] = []
        self.messages: list[Message] = []
        self.contact_id = self.world.inbound("Hello").contact_id
        self.world.work()

    def _keep(self, facts: list[str]) -> None:
        for fact in facts:
            if fact.casefold() not in {f.casefold() for f in self.model}:
                self.model.append(fact)
        del self.model[: max(len(self.model) - MEMORY_LIMIT, 0)]

    @rule(items=st.lists(st.sampled_from(ITEMS), min_size=1, max_size=5), shout=st.booleans())
    def customer_states_likes(self, items: list[str], shout: bool) -> None:
        text = " ".join(f"I like {i.upper() if shout else i}." for i in items)
        self.messages.append(self.world.inbound(text))
        self.world.work()
        self._keep([f"Likes {i.upper() if shout else i}" for i in items])

    @precondition(lambda self: bool(self.messages))
    @rule(data=st.data())
    def the_job_runs_again(self, data: st.DataObject) -> None:
        message = data.draw(st.sampled_from(self.messages))
        self.world.services.auto_replies.reply(self.world.account, message.id)

    @rule(item=st.sampled_from(ITEMS))
    def a_person_adds_a_fact(self, item: str) -> None:
        fact = f"Likes {item}"
        held = fact.casefold() in {f.casefold() for f in self.model}
        try:
            self.world.services.contact_memories.add(self.world.account, self.contact_id, fact)
        except ValidationFailed:
            assert held
            return
        assert not held
        self._keep([fact])

    @precondition(lambda self: bool(self.model))
    @rule(data=st.data())
    def a_person_deletes_a_fact(self, data: st.DataObject) -> None:
        stored = self.world.services.contact_memories.list(self.world.account, self.contact_id)
        memory = data.draw(st.sampled_from(list(stored)))
        self.world.services.contact_memories.delete(self.world.account, self.contact_id, memory.id)
        self.model.remove(memory.fact)

    @invariant()
    def the_facts_are_the_models(self) -> None:
        stored = [m.fact for m in self.world.services.contact_memories.list(self.world.account, self.contact_id)]
        assert stored == self.model

    @invariant()
    def no_duplicates_within_the_bound(self) -> None:
        stored = [
            m.fact.casefold() for m in self.world.services.contact_memories.list(self.world.account, self.contact_id)
        ]
        assert len(stored) == len(set(stored)) <= MEMORY_LIMIT

    @invariant()
    def sources_are_the_contacts_inbound_messages(self) -> None:
        sent = {m.id for m in self.messages}
        for memory in self.world.services.contact_memories.list(self.world.account, self.contact_id):
            assert memory.source_message_id is None or memory.source_message_id in sent


MemoryMachine.TestCase.settings = settings(max_examples=40, stateful_step_count=30, deadline=None)
test_memory_machine = MemoryMachine.TestCase
