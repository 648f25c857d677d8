"""What a language model is asked for the memory step: the facts a customer's message states about
themselves (`LanguageModel.extract_memories`), and the offline rules that find them without a model.

`MEMORY_PROMPT` is the system message a generative model gets (after the agent's
`memory_agent_instructions`): it answers `{"facts": ["...", ...]}` in JSON mode.

`self_statements` is the offline model's honest extraction: only explicit statements the customer
makes about themselves, matched by rules, in English and Arabic, each kept as the customer's own
clause in the third person ("My name is Sara" -> "Name: Sara"); nothing is inferred. The rules:

| The customer writes          | Kept as                 |
| ---------------------------- | ----------------------- |
| my name is X, I'm called X   | Name: X                 |
| I live in X, I'm from X      | Lives in X / From X     |
| I prefer X, I'd prefer X     | Prefers X               |
| I like X, I love X           | Likes X                 |
| I don't like X, I hate X     | Dislikes X              |
| I'm allergic to X            | Allergic to X           |
| I speak X                    | Speaks X                |
| my birthday is X             | Birthday: X             |
| my email / phone is X        | Email: X / Phone: X     |
| اسمي X                       | الاسم: X                |
| أسكن في X، أعيش في X          | يسكن في X               |
| أنا من X                      | من X                    |
| أفضّل X، أفضل X               | يفضّل X                 |
| أحب X                        | يحب X                   |

A value runs to the end of its clause (a full stop, but not one inside a word as in an email
address; a comma, question or exclamation mark, "and", "but", "و" before another statement, or a new
line), at most `VALUE_WORDS` words; a clause that is a question ("do I prefer ...?") states nothing
and is skipped, and so does a value that names nothing ("I like it").
"""

from __future__ import annotations

import re

import attrs

MEMORY_PROMPT = """From the customer's last message, list the facts the customer states about \
themselves that are worth remembering for later conversations (name, where they live, preferences, \
constraints). Only what the customer says explicitly: never guess or infer. Each fact short, in the \
third person (for example "Prefers email over phone calls"). Leave out facts already known (listed \
below). When there is none, answer an empty list.

Reply with one JSON object and nothing else: {"facts": ["<fact>", ...]}"""

VALUE_WORDS = 8
"""Words of a stated value kept at most."""

_ARABIC_NEXT = r"(?:أ|ا)?(?:سكن|عيش|فضّل|فضل|حب|نا |سمي)"
_END = rf"(?=\.(?!\S)|[,;!?؟،\n]|\s+(?:and|but|because|so)\s|\s+و{_ARABIC_NEXT}|$)"
_VAGUE = frozenset({"it", "this", "that", "them", "you", "him", "her", "to", "so"})
"""Values that name nothing ("I like it")."""
_VALUE = r"(?P<value>(?:[^.,;!?؟،\n]|\.(?=\S)){1,120}?)"


@attrs.frozen
class MemoryRequest:
    """The memory step's question: the agent's `instructions` (`memory_agent_instructions`), the
    facts `known` already, and the customer's new `message`."""

    instructions: str
    known: tuple[str, ...]
    message: str


def _rule(pattern: str, label: str) -> tuple[re.Pattern[str], str]:
    return re.compile(pattern + _VALUE + _END, re.IGNORECASE), label


_RULES: tuple[tuple[re.Pattern[str], str], ...] = (
    _rule(r"\bmy name is\s+", "Name: {}"),
    _rule(r"\bi(?:'m| am) called\s+", "Name: {}"),
    _rule(r"\bcall me\s+", "Name: {}"),
    _rule(r"\bi (?:live|stay) in\s+", "Lives in {}"),
    _rule(r"\bi(?:'m| am) from\s+", "From {}"),
    _rule(r"\bi(?:'d| would)? prefer\s+", "Prefers {}"),
    _rule(r"\bi (?:really )?(?:like|love)\s+", "Likes {}"),
    _rule(r"\bi (?:don't|do not) like\s+", "Dislikes {}"),
    _rule(r"\bi hate\s+", "Dislikes {}"),
    _rule(r"\bi(?:'m| am) allergic to\s+", "Allergic to {}"),
    _rule(r"\bi speak\s+", "Speaks {}"),
    _rule(r"\bmy birthday is\s+", "Birthday: {}"),
    _rule(r"\bmy e-?mail(?: address)? is\s+", "Email: {}"),
    _rule(r"\bmy (?:phone|mobile)(?: number)? is\s+", "Phone: {}"),
    _rule(r"اسمي\s+", "الاسم: {}"),
    _rule(r"(?:أسكن|اسكن|أعيش|اعيش)\s+(?:في|ب)\s*", "يسكن في {}"),
    _rule(r"أنا من\s+", "من {}"),
    _rule(r"(?:أفضّل|أفضل|افضل)\s+", "يفضّل {}"),
    _rule(r"(?:أحب|احب)\s+", "يحب {}"),
)
_QUESTION = re.compile(r"[^.,;!?؟،\n]*[?؟]")


def self_statements(message: str) -> tuple[str, ...]:
    """The facts `message` states about its writer, by the rules of the module notes, in the order
    they appear, each once."""
    statements = _QUESTION.sub(" ", message)  # questions state nothing
    found: list[tuple[int, str]] = []
    for pattern, label in _RULES:
        for match in pattern.finditer(statements):
            value = " ".join(match.group("value").split()[:VALUE_WORDS]).strip(" '\"")
            if value and value.casefold() not in _VAGUE:
                found.append((match.start(), label.format(value)))
    found.sort()
    return tuple(dict.fromkeys(fact for _, fact in found))
