"""Document extraction: one module per format, and `FileExtractor`, which sniffs a file's content and
hands it to the right one (see `engage_core.knowledge.extraction`)."""

from engage_connectors.documents.composite import FileExtractor

__all__ = ["FileExtractor"]
