"""The prompt of a turn: the persona's prompts and guidelines, the retrieved passages, and the shape
of the answer, as one system message (`TurnRequest.instructions`).

In order: `system_prompt`, `instruction_prompt`, the `personality_prompt` (tone), the formatting
rules of `response_guidelines` (`key: value`, and the reply's length limit), any instructions of
the caller (the system messages of a chat completion), the passages, each labelled with its chunk id
(`<passage id="12" title="...">`), and the rules of the answer: answer only from the passages, hand
over when they do not answer, and reply with one JSON object of the shape `ANSWER_SHAPE`.
"""

from __future__ import annotations

from collections.abc import Sequence

from engage_core.answering.guidelines import Guidelines
from engage_core.answering.passages import Passage
from engage_core.answering.persona import Persona

ANSWER_SHAPE = (
    '{"reply": "<your message to the customer>", "action": "continue" | "handoff" | "resolve", '
    '"citations": [<ids of the passages your reply uses>], "confidence": <0 to 1>}'
)

RULES = f"""How to answer:
- Answer only from the passages above. Never guess or add facts they do not state.
- If the passages do not answer the customer's message, or the customer asks for a person, do not \
answer it: set "action" to "handoff" and tell the customer briefly that a member of the team will \
follow up.
- Set "action" to "resolve" when the customer says their question is settled and needs nothing more.
- Otherwise set "action" to "continue".
- List in "citations" the ids of the passages your reply uses; "confidence" is how sure you are \
that the reply is right and complete.
- Greetings, thanks and goodbyes need no passage: answer them briefly.

Reply with one JSON object and nothing else, of this shape:
{ANSWER_SHAPE}"""


def instructions(
    persona: Persona, guidelines: Guidelines, passages: Sequence[Passage], extra: Sequence[str] = ()
) -> str:
    """The system message of a turn (see the module notes)."""
    parts = [persona.system_prompt.strip()]
    if persona.instruction_prompt and persona.instruction_prompt.strip():
        parts.append(persona.instruction_prompt.strip())
    if persona.personality_prompt and persona.personality_prompt.strip():
        parts.append(f"Personality and tone: {persona.personality_prompt.strip()}")
    rules = [f"- {key}: {value}" for key, value in guidelines.rules]
    if guidelines.max_reply_chars is not None:
        rules.append(f"- Keep the reply under {guidelines.max_reply_chars} characters.")
    if rules:
        parts.append("Formatting rules:\n" + "\n".join(rules))
    parts.extend(text.strip() for text in extra if text.strip())
    parts.append(knowledge(passages))
    parts.append(RULES)
    return "\n\n".join(parts)


def knowledge(passages: Sequence[Passage]) -> str:
    """The passages, each labelled by its chunk id and titled, or a line saying there are none."""
    if not passages:
        return "Knowledge base passages: none matches the customer's message."
    blocks = [f"{passage_label(p)}\n{p.content.strip()}\n</passage>" for p in passages]
    return "Knowledge base passages:\n\n" + "\n\n".join(blocks)


def passage_label(passage: Passage) -> str:
    """`<passage id="12" title="Shipping > Abroad">`: the chunk id, and its header or entry title."""
    title = (passage.context_header or passage.title).replace('"', "'").replace("\n", " ")
    return f'<passage id="{passage.chunk_id}" title="{title}">'
