"""What a customer message is when it asks nothing of the knowledge base: small talk (a greeting,
thanks, a goodbye) or a request for a person.

A message is small talk when every word of it is a small-talk word or a stop word ("Hi!", "thanks a
lot", "ok bye"): "Hi, do you ship to Canada?" is a question. Small talk needs no passage, so the
honesty rule (`engage_core.answering.engine`) lets it be answered without a citation. The words
are English, Arabic, French and Spanish; anything else is treated as a question.

A request for a person is a message asking to reach one ("Can I talk to a human?", "I want a real
agent"); "Do your staff speak Arabic?" is a question.
The offline model hands those over; a generative model decides itself, as its instructions say.
"""

from __future__ import annotations

from typing import Literal

from engage_core.knowledge.terms import STOP_WORDS, fold, tokens

SmallTalk = Literal["greeting", "thanks", "farewell"]

PERSON_REACH = 4
"""Words between "talk", "speak", "want"... and the person asked for ("talk to a real human")."""

_GREETINGS_TEXT = """hi hello hey heya hiya yo howdy greetings morning afternoon evening good day salam salaam assalamu
    alaikum marhaba مرحبا السلام سلام عليكم اهلا أهلا هلا صباح مساء الخير النور bonjour bonsoir salut hola buenos
    buenas dias tardes noches"""
_GREETINGS = frozenset(_GREETINGS_TEXT.split())
_THANKS_TEXT = """thanks thank thx ty cheers appreciated appreciate great perfect awesome ok okay k cool nice lot much
    شكرا شكراً مشكور يعطيك العافية تمام merci beaucoup gracias muchas vale"""
_THANKS = frozenset(_THANKS_TEXT.split())
_FAREWELLS_TEXT = """bye goodbye cya later see soon night take care that all done وداعا سلامة السلامه السلامة مع
    au revoir adios adiós hasta luego"""
_FAREWELLS = frozenset(_FAREWELLS_TEXT.split())
_FILLERS = frozenset({"good", "great", "perfect", "awesome", "cool", "nice", "lot", "much", "day"})
"""Small-talk words only beside another ("good morning", "great, thanks"): "Is it good?" is a question."""
_FAREWELL_PHRASES = ("that's all", "that is all", "thats all", "nothing else", "all set", "all good")
_HUMAN_WORDS_TEXT = """human person people someone somebody agent agents representative rep operator staff employee
    manager supervisor انسان إنسان موظف شخص humain personne conseiller humano persona"""
_HUMAN_WORDS = frozenset(_HUMAN_WORDS_TEXT.split())
_CONTACT_WORDS_TEXT = """talk speak chat connect transfer contact reach call real live actual want need get give put
    أكلم اكلم أتحدث اتحدث كلم parler hablar"""
_CONTACT_WORDS = frozenset(_CONTACT_WORDS_TEXT.split())


def small_talk(message: str) -> SmallTalk | None:
    """The kind of small talk the message is (see the module notes), or None for anything else."""
    words = [w for w in tokens(message) if len(w) > 1 and w not in STOP_WORDS]
    phrase = any(p in fold(message).replace("’", "'") for p in _FAREWELL_PHRASES)
    if any(w not in _GREETINGS | _THANKS | _FAREWELLS for w in words):
        return None
    if not phrase and all(w in _FILLERS for w in words):
        return None
    if phrase or (any(w in _FAREWELLS for w in words) and not all(w in _GREETINGS for w in words)):
        return "farewell"
    if any(w in _THANKS for w in words):
        return "thanks"
    return "greeting"


def asks_for_a_person(message: str) -> bool:
    """Whether the message asks to talk to a person: a way to reach one followed, within
    `PERSON_REACH` words, by a person ("talk to a human", "I want a real agent"), or a message that is
    no more than a person ("Human!", "agent please")."""
    words = tokens(fold(message))
    meaningful = [w for w in words if w not in STOP_WORDS]
    if meaningful and all(w in _HUMAN_WORDS for w in meaningful):
        return True
    return any(
        word in _CONTACT_WORDS and any(w in _HUMAN_WORDS for w in words[at + 1 : at + 1 + PERSON_REACH])
        for at, word in enumerate(words)
    )


def asks_something(message: str) -> bool:
    """Whether the message holds a question mark (Latin or Arabic): it asks, and does not only tell."""
    return "?" in message or "؟" in message
