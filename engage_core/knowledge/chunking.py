"""Splitting an entry's text into chunks: the passages AI search ranks and quotes (SPEC 2, Chunk).

Pure functions, no I/O. Two modes:

- `chunk_text`: prose (a text entry, an extracted document, a transcription, a crawled page). Markdown
  headings (`#` to `######` at the start of a line) open sections; each section is cut into chunks of
  at most `size` characters, preferring to break between paragraphs, then after a sentence end
  (`. ! ? ؟ ۔` and the ellipsis), then after a clause mark (`, ; : ،`), then at any space; a word is
  never cut unless it alone is longer than a chunk. Every chunk after the first of a section begins
  with about `overlap` characters from the end of the one before (whole words), so a sentence split
  across two chunks can still be found whole in one of them. `size` bounds the chunk, overlap included.
- `chunk_records`: one chunk per record (a CSV or spreadsheet row, a catalog product), so one
  product's facts never mix with another's; a record longer than `size` is split as prose is.

Each chunk carries its `context_header` (the entry title and the heading path, "Returns policy >
Refunds"), and up to `MAX_KEYWORDS` `keywords`: the terms most particular to it, by TF-IDF against the
entry's other chunks (stop words of English and Arabic removed; ties go to the term seen first).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

import attrs

from engage_core.knowledge.terms import content_terms

DEFAULT_SIZE = 1000
DEFAULT_OVERLAP = 100
MAX_KEYWORDS = 8
HEADER_SEPARATOR = " > "

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n\s*")
_SENTENCE_END = re.compile(r"(?:[.!?؟۔…]+[\"'”’)\]]*)(\s+)")
_CLAUSE_END = re.compile(r"[,;:،؛](\s+)")
_SPACE = re.compile(r"\s+")


@attrs.frozen
class ChunkDraft:
    """One chunk as the splitter makes it, before it is stored. `overlap` is how many leading
    characters of `content` repeat the end of the chunk before (0 for the first of a section)."""

    content: str
    chunk_index: int
    total_chunks: int
    context_header: str | None
    keywords: tuple[str, ...]
    overlap: int = 0

    @property
    def char_count(self) -> int:
        return len(self.content)


@attrs.frozen
class _Piece:
    content: str
    header: str | None
    overlap: int


def chunk_text(
    text: str, *, title: str | None = None, size: int = DEFAULT_SIZE, overlap: int = DEFAULT_OVERLAP
) -> list[ChunkDraft]:
    """Prose cut into chunks by section, paragraph and sentence (see the module notes)."""
    _check(size, overlap)
    pieces: list[_Piece] = []
    for headings, body in _sections(text):
        pieces.extend(_split(body, _header(title, headings), size, overlap))
    return _finish(pieces)


def chunk_records(
    records: Iterable[str], *, title: str | None = None, size: int = DEFAULT_SIZE, overlap: int = DEFAULT_OVERLAP
) -> list[ChunkDraft]:
    """One chunk per non-blank record; a record longer than `size` becomes several."""
    _check(size, overlap)
    header = _header(title, ())
    pieces: list[_Piece] = []
    for record in records:
        pieces.extend(_split(record, header, size, overlap))
    return _finish(pieces)


def record_text(record: Mapping[str, object]) -> str:
    """A record (a CSV row, a product) as text for `chunk_records`: one `field: value` line per field
    with a value."""
    return "\n".join(f"{key}: {value}" for key, value in record.items() if value is not None and str(value).strip())


def keywords(chunks: Sequence[str], limit: int = MAX_KEYWORDS) -> list[tuple[str, ...]]:
    """For each chunk, its `limit` most distinctive terms by TF-IDF across `chunks`."""
    terms = [content_terms(chunk) for chunk in chunks]
    frequency: Counter[str] = Counter(term for chunk in terms for term in set(chunk))
    total = len(chunks)
    result: list[tuple[str, ...]] = []
    for chunk in terms:
        counts = Counter(chunk)
        first = {term: -position for position, term in reversed(list(enumerate(chunk)))}
        ranked = sorted(
            counts,
            key=lambda t: (counts[t] * (math.log((1 + total) / (1 + frequency[t])) + 1), first[t]),
            reverse=True,
        )
        result.append(tuple(ranked[:limit]))
    return result


def _check(size: int, overlap: int) -> None:
    if size < 50 or not 0 <= overlap <= size // 4:
        raise ValueError("size must be at least 50 and overlap between 0 and a quarter of it")


def _header(title: str | None, headings: Sequence[str]) -> str | None:
    parts = [part for part in (title and title.strip(), *headings) if part]
    return HEADER_SEPARATOR.join(parts) if parts else None


def _sections(text: str) -> list[tuple[tuple[str, ...], str]]:
    """The text's sections: the heading path above each, and its body."""
    sections: list[tuple[tuple[str, ...], str]] = []
    path: list[tuple[int, str]] = []
    body: list[str] = []

    def close() -> None:
        sections.append((tuple(title for _, title in path), "\n".join(body)))
        body.clear()

    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading is None:
            body.append(line)
            continue
        close()
        level = len(heading.group(1))
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, heading.group(2).strip()))
    close()
    return sections


def _split(body: str, header: str | None, size: int, overlap: int) -> list[_Piece]:
    """A section's body as pieces of at most `size` characters, overlap included."""
    pieces: list[_Piece] = []
    position = _skip_space(body, 0)
    tail = ""
    while position < len(body):
        budget = size - (len(tail) + 1 if tail else 0)
        end = _break(body, position, budget)
        part = body[position:end].rstrip()
        content = f"{tail} {part}" if tail else part
        pieces.append(_Piece(content, header, len(tail) + 1 if tail else 0))
        tail = _tail(part, overlap)
        position = _skip_space(body, end)
    return pieces


def _break(text: str, start: int, budget: int) -> int:
    """Where the chunk starting at `start` ends: the best break within `budget` characters."""
    limit = start + budget
    if len(text.rstrip()) <= limit:
        return len(text)
    window = text[start : limit + 1]  # a break may fall on the whitespace just past the budget
    floor = budget // 2
    for pattern in (_PARAGRAPH_BREAK, _SENTENCE_END, _CLAUSE_END):
        ends = [m.start(1) if m.groups() else m.start() for m in pattern.finditer(window)]
        good = [e for e in ends if floor <= e <= budget]
        if good:
            return start + good[-1]
    spaces = [m.start() for m in _SPACE.finditer(window) if 0 < m.start() <= budget]
    if spaces:
        return start + spaces[-1]
    return limit  # one word longer than a chunk: cut it


def _tail(part: str, overlap: int) -> str:
    """The last `overlap` characters or fewer of `part`, starting at a word."""
    if overlap == 0 or not part:
        return ""
    start = max(0, len(part) - overlap)
    if start > 0 and not part[start - 1].isspace():
        space = _SPACE.search(part, start)
        if space is None:
            return ""
        start = space.end()
    return _SPACE.sub(" ", part[start:]).strip()


def _skip_space(text: str, position: int) -> int:
    while position < len(text) and text[position].isspace():
        position += 1
    return position


def _finish(pieces: Sequence[_Piece]) -> list[ChunkDraft]:
    words = keywords([piece.content for piece in pieces])
    total = len(pieces)
    return [
        ChunkDraft(piece.content, index, total, piece.header, words[index], piece.overlap)
        for index, piece in enumerate(pieces)
    ]
