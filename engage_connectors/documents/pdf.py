"""PDF text through pypdf: one `Section` per page, under `Page N`.

A password-protected PDF fails with a reason; one encrypted only against editing (an empty user
password) is read. A damaged file fails with a reason; a damaged page is skipped while others read.
`max_pages` and `time_budget` (seconds, checked between pages) bound the work a pathological PDF can
cost a worker: past either, reading stops and the document is marked truncated.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

from pypdf import PasswordType, PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError

from engage_core.knowledge.extraction import ExtractedDocument, ExtractionFailed, Section, document

logger = logging.getLogger("engage.knowledge.documents")

MAX_PAGES = 2000
TIME_BUDGET_SECONDS = 120.0
NO_TEXT_HINT = "It may be a scanned image: text inside images is not read."
DAMAGED = "The PDF is damaged and could not be read."
PROTECTED = "The PDF is password-protected. Upload a copy without a password."


class PdfExtractor:
    def __init__(
        self,
        max_pages: int = MAX_PAGES,
        time_budget: float = TIME_BUDGET_SECONDS,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self._max_pages = max_pages
        self._time_budget = time_budget
        self._monotonic = monotonic

    def extract(self, path: Path) -> ExtractedDocument:
        started = self._monotonic()
        reader = _open(path)
        try:
            page_total = len(reader.pages)
        except Exception:  # pypdf raises many kinds on a broken page tree
            raise ExtractionFailed(DAMAGED) from None
        sections: list[Section] = []
        read = failed = 0
        truncated = False
        for index in range(page_total):
            if read + failed >= self._max_pages or self._monotonic() - started > self._time_budget:
                truncated = True
                break
            try:
                text = reader.pages[index].extract_text()
            except Exception as exc:  # one bad page should not lose the others
                logger.info("PDF page %d of %s unreadable: %s", index + 1, path.name, exc)
                failed += 1
                continue
            read += 1
            sections.append(Section(text.strip(), (f"Page {index + 1}",)))
        if failed and not read:
            raise ExtractionFailed(DAMAGED)
        return document("pdf", sections, page_count=read, truncated=truncated, hint=NO_TEXT_HINT)


def _open(path: Path) -> PdfReader:
    try:
        reader = PdfReader(path)
        if reader.is_encrypted and reader.decrypt("") == PasswordType.NOT_DECRYPTED:
            raise ExtractionFailed(PROTECTED)
    except ExtractionFailed:
        raise
    except FileNotDecryptedError:
        raise ExtractionFailed(PROTECTED) from None
    except DependencyError:
        raise ExtractionFailed("The PDF uses an encryption this server cannot read.") from None
    except Exception:  # a damaged file raises far more kinds than PdfReadError
        raise ExtractionFailed(DAMAGED) from None
    return reader
