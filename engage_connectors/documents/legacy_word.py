"""Legacy Word (`.doc`, and RTF saved under `.doc`) through LibreOffice: `soffice --headless
--convert-to docx` in a private temporary directory, then the DOCX reader, so headings and tables
come out as they do for DOCX (`--cat` gives plain lines and loses both).

Each run has its own LibreOffice profile (`-env:UserInstallation`) and HOME inside the temporary
directory, so parallel workers never share a profile or its lock. The whole process group is killed
past `timeout` seconds. Without `soffice` on PATH, the failure tells the operator what to install.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path

import attrs

from engage_connectors.documents.word import DocxExtractor
from engage_core.knowledge.extraction import ExtractedDocument, ExtractionFailed

TIMEOUT_SECONDS = 60.0
NOT_INSTALLED = (
    "Legacy .doc files need LibreOffice on the server: apt-get install libreoffice-writer-nogui. "
    "Or save the file as DOCX and upload it again."
)
DAMAGED = "The legacy Word document could not be converted; it may be damaged."


def find_soffice() -> str | None:
    """The LibreOffice binary on PATH, if any."""
    return shutil.which("soffice") or shutil.which("libreoffice")


class LegacyWordExtractor:
    def __init__(self, timeout: float = TIMEOUT_SECONDS, soffice: Callable[[], str | None] = find_soffice) -> None:
        self._timeout = timeout
        self._soffice = soffice

    def extract(self, path: Path) -> ExtractedDocument:
        binary = self._soffice()
        if binary is None:
            raise ExtractionFailed(NOT_INSTALLED)
        with tempfile.TemporaryDirectory(prefix="engage-soffice-") as work:
            converted = _convert(binary, path, Path(work), self._timeout)
            return attrs.evolve(DocxExtractor().extract(converted), format="doc")


def _convert(binary: str, source: Path, work: Path, timeout: float) -> Path:
    # A copy under a plain name: the upload's own name may hold anything, and soffice names its
    # output after its input.
    original = work / "document.doc"
    shutil.copyfile(source, original)
    out = work / "out"
    command = [
        binary,
        f"-env:UserInstallation={(work / 'profile').as_uri()}",
        "--headless",
        "--norestore",
        "--nolockcheck",
        "--convert-to",
        "docx",
        "--outdir",
        str(out),
        str(original),
    ]
    env = {**os.environ, "HOME": str(work)}
    process = subprocess.Popen(  # noqa: S603 - fixed arguments, no shell
        command,
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: soffice starts soffice.bin under it
    )
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        raise ExtractionFailed(
            f"The legacy Word document took longer than {timeout:g} seconds to convert; it is refused."
        ) from None
    converted = out / "document.docx"
    if process.returncode != 0 or not converted.is_file():
        raise ExtractionFailed(DAMAGED)
    return converted
