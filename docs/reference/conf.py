"""Sphinx configuration of the library reference: `make docs` builds it into build/docs/reference."""

from __future__ import annotations

import builtins
import sys
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the packages of this checkout, installed or not

project = "engage"
author = "engage contributors"
copyright = "engage contributors"

extensions = ["sphinx.ext.autodoc"]

root_doc = "index"
exclude_patterns: list[str] = []
html_theme = "furo"
html_title = "engage library reference"

# The docstrings mark code with single backticks (`name`), as the rest of the docs do.
default_role = "literal"

autodoc_default_options = {"members": True, "undoc-members": True, "member-order": "bysource"}
autodoc_class_signature = "separated"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True

# Every cross-reference must resolve: a renamed class or method breaks the build.
nitpicky = True

# The standard library's objects are not linked: its inventory would be fetched from the network,
# which CI does not have. These are the ones the signatures name, listed so that any other missing
# target still fails the build.
nitpick_ignore = [
    ("py:class", name)
    for name in (
        "collections.abc.Callable",
        "collections.abc.Collection",
        "collections.abc.Iterable",
        "collections.abc.Iterator",
        "collections.abc.Mapping",
        "collections.abc.Sequence",
        "datetime",
        "datetime.date",
        "datetime.datetime",
        "datetime.timedelta",
        "decimal.Decimal",
        "pathlib.Path",
        "threading.Event",
        "zoneinfo.ZoneInfo",
    )
]
# The fakes' tables hold private row classes (a row with what only the fake needs to keep); the
# tables' fields are listed, their rows are not part of the API.
nitpick_ignore += [
    ("py:class", name)
    for module, row in (
        ("accounts", "_AccountRow"),
        ("contacts", "_SegmentRow"),
        ("webhooks", "_AttemptRow"),
        ("jobs", "_Leased"),
    )
    for name in (row, f"engage_core.{module}.fakes.{row}")
]


# The testing kit's signatures name Hypothesis's types, which this reference does not document.
nitpick_ignore += [
    ("py:class", name)
    for name in (
        "hypothesis.strategies.SearchStrategy",
        "hypothesis.strategies._internal.core.DrawFn",
        "hypothesis.strategies._internal.core.DataObject",
        "hypothesis.stateful.Bundle",
        "hypothesis.stateful.RuleBasedStateMachine",
        "Bundle",
    )
]


def _builtins_resolve_exactly(app: Sphinx, doctree: nodes.document) -> None:
    """Sphinx 9 looks an annotation's bare name up by suffix (sphinx-doc/sphinx#14223), so the
    builtin `type` matched every documented attribute named `type`. Without `refspecific` a builtin
    is looked up exactly, finds nothing, and Sphinx's builtin resolver accepts it."""
    for ref in doctree.findall(addnodes.pending_xref):
        if ref.get("refdomain") == "py" and ref.get("reftarget") in _BUILTINS and ref.hasattr("refspecific"):
            del ref["refspecific"]


_BUILTINS = frozenset(name for name in dir(builtins) if not name.startswith("_"))


def setup(app: Sphinx) -> None:
    app.connect("doctree-read", _builtins_resolve_exactly)
