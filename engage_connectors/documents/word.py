"""DOCX through python-docx: the body in order, paragraphs and tables interleaved.

Paragraphs in heading styles (`Title` above `Heading 1`-`Heading 9`, or any paragraph with an
outline level) open a heading path; the body paragraphs after a heading become one `Section` under that
path, the heading's own text as its first line. A table's first row is its header and each further
row a `Record` (`header: value` lines); a one-row table is a `Section` of its cells. Headers,
footers, footnotes, comments and text boxes are not read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import docx
from docx.document import Document
from docx.table import Table, _Row
from docx.text.paragraph import Paragraph

from engage_core.knowledge.extraction import ExtractedDocument, ExtractionFailed, Part, Record, Section, document

_HEADING_STYLE = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)


class DocxExtractor:
    def extract(self, path: Path) -> ExtractedDocument:
        try:
            doc = docx.Document(str(path))
        except Exception:  # python-docx raises zip, XML and key errors on a damaged package
            raise ExtractionFailed("The Word document is damaged and could not be read.") from None
        parts = list(_parts(doc))
        rows = sum(1 for part in parts if isinstance(part, Record))
        return document("docx", parts, row_count=rows or None)


def _parts(doc: Document) -> Iterator[Part]:
    headings: list[tuple[int, str]] = []  # (level, text), outermost first
    lines: list[str] = []

    def path() -> tuple[str, ...]:
        return tuple(text for _, text in headings)

    for block in doc.iter_inner_content():
        if isinstance(block, Paragraph):
            text = block.text.strip()
            level = _heading_level(block)
            if level is None:
                if text:
                    lines.append(text)
                continue
            if lines:
                yield Section("\n".join(lines), path())
            while headings and headings[-1][0] >= level:
                headings.pop()
            if text:
                headings.append((level, text))
            lines = [text] if text else []
        elif isinstance(block, Table):
            if lines:
                yield Section("\n".join(lines), path())
                lines = []
            yield from _table(block, path())
    if lines:
        yield Section("\n".join(lines), path())


def _heading_level(paragraph: Paragraph) -> int | None:
    """0 for `Title` (a document's title is above its first-level headings), N for `Heading N`, the
    outline level + 1 for another paragraph with one; None for body text."""
    style = paragraph.style
    while style is not None:
        name = (style.name or "").strip()
        if name.lower() == "title":
            return 0
        if match := _HEADING_STYLE.match(name):
            return int(match.group(1))
        style = style.base_style
    levels = paragraph._p.xpath("./w:pPr/w:outlineLvl/@w:val")
    if levels and str(levels[0]).isdigit() and int(levels[0]) < 9:
        return int(levels[0]) + 1
    return None


def _table(table: Table, heading_path: tuple[str, ...]) -> Iterator[Part]:
    rows = [(number, cells) for number, row in enumerate(table.rows, start=1) if any(cells := _cells(row))]
    if not rows:
        return
    if len(rows) == 1:
        yield Section(" | ".join(cell for cell in rows[0][1] if cell), heading_path)
        return
    header = rows[0][1]
    for number, cells in rows[1:]:
        record = Record.of(header, cells, number, heading_path)
        if record is not None:
            yield record


def _cells(row: _Row) -> list[str]:
    """The row's cell texts, a merged cell once, each on one line."""
    seen: list[object] = []
    texts: list[str] = []
    for cell in row.cells:
        if any(cell._tc is other for other in seen):
            continue
        seen.append(cell._tc)
        texts.append(" ".join(cell.text.split()))
    return texts
