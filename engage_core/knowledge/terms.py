"""Words of knowledge-base text as search sees them: tokens, stop words, and light stemming.

One tokeniser serves chunk keywords, the in-memory ranker, and the queries the SQL adapters build,
so every adapter agrees on what a "term" is. It follows what SQLite's FTS5 tokenizer `unicode61
remove_diacritics 2` does: runs of letters and digits, lower-cased, with diacritics folded on Latin
letters only (Arabic letters with hamza stay distinct from the bare alef, as in FTS5).

Stemming-lite. Neither FTS5 nor PostgreSQL's `simple` configuration stems, so "refunds" would not
find "refund". The index keeps the words as written; a query term is instead reduced to a stem by
stripping a few English suffixes (`stem`), and searched as a prefix of indexed words: "refunds" ->
`refund*` finds refund, refunds, refunded; "shipping" -> `ship*` finds ship, ships, shipped. Arabic
query words lose a leading article ("ال", "وال", "بال", ...) the same way and are searched both as
written and by their stem. A stem shorter than three letters is not used as a prefix (too broad).
"""

from __future__ import annotations

import bisect
import functools
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence

_WORD = re.compile(r"\w+", re.UNICODE)
_LATIN_ACCENTED = re.compile("[\u00c0-\u024f]")  # Latin-1 to Latin Extended-B: diacritics fold away

MIN_STEM = 3
"""A stem shorter than this is searched as the whole word only."""

_ENGLISH_STOP_WORDS = """a about above after again against all am an and any are as at be because been before being
    below between both but by can cannot could did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just let me
    more most my myself no nor not now of off on once only or other ought our ours ourselves out over own
    please same she should so some such than that the their theirs them themselves then there these they
    this those through to too under until up us very was we were what when where which while who whom why
    will with would you your yours yourself yourselves get got also may might must shall still yet via
    per much many want need tell know like"""

_ARABIC_STOP_WORDS = """في من على إلى الى عن مع هل ما ماذا متى أين اين كيف كم لماذا هو هي هم هن أنا انا نحن أنت انت أنتم
    انتم هذا هذه ذلك تلك هؤلاء الذي التي الذين و أو او ثم لا لم لن إن ان أن كان كانت يكون تكون قد كل بعض
    أي اي عند عندي عندكم لدي لديكم لكم لنا لي له لها به بها فيه فيها منه منها إذا اذا حتى بين بعد قبل
    يا أيضا ايضا غير كما لكن بل فقط هناك هنا ممكن يمكن يمكنني أريد اريد"""
ENGLISH_STOP_WORDS: frozenset[str] = frozenset(_ENGLISH_STOP_WORDS.split())
ARABIC_STOP_WORDS: frozenset[str] = frozenset(_ARABIC_STOP_WORDS.split())

STOP_WORDS: frozenset[str] = ENGLISH_STOP_WORDS | ARABIC_STOP_WORDS

_ARABIC_PREFIXES: tuple[str, ...] = ("وال", "بال", "فال", "كال", "لل", "ال")
_ARABIC_CLITICS: tuple[str, ...] = ("", "و", "ب", "ف", "ك")
# Longest first, so "shipping" loses "ing" (and then its doubled consonant) before "s" is tried.
_ENGLISH_SUFFIXES: tuple[str, ...] = (
    "ational",
    "ations",
    "ation",
    "ments",
    "ment",
    "ness",
    "ian",
    "ings",
    "ing",
    "ies",
    "ied",
    "ers",
    "er",
    "es",
    "ed",
    "ly",
    "s",
)


def fold(text: str) -> str:
    """Lower-case, with diacritics removed from Latin letters (é -> e) as FTS5 `remove_diacritics 2`."""
    lowered = text.lower()
    return lowered if lowered.isascii() else _LATIN_ACCENTED.sub(_unaccent, lowered)


@functools.lru_cache(maxsize=1024)
def _unaccented(char: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", char) if not unicodedata.combining(c))


def _unaccent(found: re.Match[str]) -> str:
    return _unaccented(found.group())


def tokens(text: str, *, folded: bool = True) -> list[str]:
    """Every word of `text`, folded (or only lower-cased), in order (stop words included)."""
    return _WORD.findall(fold(text) if folded else text.lower())


def content_terms(text: str, *, folded: bool = True) -> list[str]:
    """The words of `text` that carry meaning: tokens without stop words or lone characters."""
    return [t for t in tokens(text, folded=folded) if len(t) > 1 and fold(t) not in STOP_WORDS]


def _is_arabic(word: str) -> bool:
    return any("\u0600" <= c <= "\u06ff" for c in word)


def stem(word: str) -> str:
    """A folded word reduced by stemming-lite (see the module notes); the word itself if too short."""
    if _is_arabic(word):
        for prefix in _ARABIC_PREFIXES:
            if word.startswith(prefix) and len(word) - len(prefix) >= MIN_STEM:
                return word[len(prefix) :]
        return word
    if word.isdigit():
        return word
    base = word
    for suffix in _ENGLISH_SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= MIN_STEM:
            base = word[: -len(suffix)]
            if suffix in ("ing", "ed", "er", "ers", "ings") and len(base) > MIN_STEM and base[-1] == base[-2]:
                base = base[:-1]  # shipping -> shipp -> ship
            break
    if base[-1] in "ye" and len(base) > MIN_STEM:
        base = base[:-1]  # delivery -> deliver (deliveries, delivered); price -> pric (prices, priced)
    return base


def query_terms(text: str, *, folded: bool = True) -> list[str]:
    """The distinct content terms of a query, in order of first appearance (folded, not stemmed).
    `folded=False` keeps Latin diacritics, for an index that keeps them (PostgreSQL's `simple`)."""
    return list(dict.fromkeys(content_terms(text, folded=folded)))


@functools.lru_cache(maxsize=4096)
def expansions(term: str) -> list[tuple[str, bool]]:
    """How a query term is searched: `(text, is_prefix)` alternatives, any of which matching an indexed
    word counts: the word as written and its stem as a prefix. An Arabic stem is also tried behind
    the article and the one-letter proclitics (و ب ف ك ل), since the index keeps "والشحن" or "بمدى"
    whole: a query for "شحن" or "مدى" should find them."""
    base = stem(term)
    if _is_arabic(term):
        found = [(term, False)]
        if len(base) >= MIN_STEM:
            for form in (base, "ال" + base):
                found.extend((clitic + form, True) for clitic in _ARABIC_CLITICS)
            found.extend((("ل" + base, True), ("لل" + base, True)))
        return list(dict.fromkeys(found))
    if len(base) >= MIN_STEM and base != term:
        return [(term, False), (base, True)]
    if len(term) > MIN_STEM and not term.isdigit():
        return [(term, True)]  # hour -> hours
    return [(term, False)]


class WordSet:
    """The distinct folded words of a passage, sorted, so a query term (and its prefixes) is looked up
    by bisection instead of a scan."""

    def __init__(self, text: str) -> None:
        self._words = sorted(set(tokens(text)))

    def has(self, term: str) -> bool:
        """Whether the term matches a word of the passage (as `matches` decides)."""
        words = self._words
        for text, prefix in expansions(term):
            at = bisect.bisect_left(words, text)
            if at < len(words) and (words[at] == text or (prefix and words[at].startswith(text))):
                return True
        return False


def matches(term: str, words: Iterable[str]) -> bool:
    """Whether a query term is found among a passage's folded words, by the rule the adapters search by."""
    alternatives = expansions(term)
    return any(w.startswith(text) if prefix else w == text for w in words for text, prefix in alternatives)


def marked(text: str, terms: Sequence[str]) -> Iterator[tuple[str, bool]]:
    """`text` in pieces, each with whether it is a word some query term matches."""
    position = 0
    for found in _WORD.finditer(text):
        if found.start() > position:
            yield text[position : found.start()], False
        yield found.group(), any(matches(t, [fold(found.group())]) for t in terms)
        position = found.end()
    if position < len(text):
        yield text[position:], False
