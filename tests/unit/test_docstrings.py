"""The library's public surface is documented: every public class and method of the services, ports,
fakes and wiring has a docstring, and the reference in docs/reference lists every module."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path
from types import ModuleType

import pytest

import engage_core

REFERENCE = Path(__file__).resolve().parents[2] / "docs" / "reference"

# The modules a user of the library calls or implements: the use cases, the ports, the fakes, and
# how they are put together.
DOCUMENTED_ROLES = ("ports", "fakes", "wiring", "services", "testing", "unit_of_work", "units", "clock")


def engage_core_modules() -> list[str]:
    """Every module of engage_core, packages included."""
    found = [engage_core.__name__]
    found += [info.name for info in pkgutil.walk_packages(engage_core.__path__, f"{engage_core.__name__}.")]
    return sorted(found)


def is_api_module(name: str) -> bool:
    """A service module (`*_service`, `service`) or one of `DOCUMENTED_ROLES`."""
    last = name.rsplit(".", 1)[-1]
    return last.endswith("service") or last in DOCUMENTED_ROLES


def undocumented(module: ModuleType) -> list[str]:
    """The public classes, functions, methods and properties the module defines without a docstring."""
    missing: list[str] = []
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(obj) and not has_doc(obj):
            missing.append(name)
        if inspect.isclass(obj):
            if not has_doc(obj):
                missing.append(name)
            missing += [f"{name}.{member}" for member in undocumented_members(obj)]
    return missing


def undocumented_members(cls: type) -> list[str]:
    """The public methods and properties `cls` itself defines without a docstring."""
    missing = []
    for name, member in vars(cls).items():
        if name.startswith("_"):
            continue
        function = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
        if (inspect.isfunction(function) or isinstance(member, property)) and not has_doc(function):
            missing.append(name)
    return missing


def has_doc(obj: object) -> bool:
    """Whether `obj` has a docstring of its own (not one attrs or a base class gave it)."""
    doc = vars(obj).get("__doc__") if inspect.isclass(obj) else getattr(obj, "__doc__", None)
    return bool(doc and doc.strip())


@pytest.mark.parametrize("name", [name for name in engage_core_modules() if is_api_module(name)])
def test_every_public_name_has_a_docstring(name: str) -> None:
    """Each public class, method and property of a service, port, fakes or wiring module says what it does."""
    assert undocumented(importlib.import_module(name)) == []


def test_the_reference_documents_every_module() -> None:
    """docs/reference has an automodule directive for every module of engage_core, so none is left out."""
    text = "\n".join(page.read_text(encoding="utf-8") for page in REFERENCE.rglob("*.rst"))
    listed = set(re.findall(r"^\.\. automodule:: (\S+)$", text, flags=re.MULTILINE))
    assert sorted(set(engage_core_modules()) - listed) == []
