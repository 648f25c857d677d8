"""The adapters hand out what the core's unit-of-work protocols name, each repository with the
methods of its port: the fakes and the SQL adapter register their repositories under the same names,
and every method of every repository port has its twin, with the same parameters, in both."""

from __future__ import annotations

import inspect
from typing import Any, get_type_hints

import pytest

from engage_core.unit_of_work import AdminUnitOfWork, PartnerUnitOfWork, UnitOfWorkFactory, WorkspaceUnitOfWork

KINDS: dict[str, type] = {"workspace": WorkspaceUnitOfWork, "admin": AdminUnitOfWork, "partners": PartnerUnitOfWork}


def _repository_ports(protocol: type) -> dict[str, type]:
    """The repositories a unit-of-work protocol hands out: attribute name -> port."""
    found: dict[str, type] = {}
    for klass in protocol.__mro__:
        for name, member in vars(klass).items():
            if isinstance(member, property) and name != "account_id" and name not in found:
                found[name] = get_type_hints(member.fget)["return"]
    return found


def _open(uow: UnitOfWorkFactory, kind: str) -> Any:
    if kind == "workspace":
        return uow.workspace(1, readonly=True)
    return uow.admin(readonly=True) if kind == "admin" else uow.partners(readonly=True)


def _methods(port: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(member)
        for name, member in vars(port).items()
        if callable(member) and not name.startswith("_")
    }


def _shape(signature: inspect.Signature) -> list[tuple[str, Any]]:
    """Parameter names and kinds, and whether each has a default (annotations are the checker's)."""
    return [
        (p.name, p.kind, p.default is inspect.Parameter.empty)
        for p in signature.parameters.values()
        if p.name != "self"
    ]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_repository_the_protocol_names_is_handed_out(uow: UnitOfWorkFactory, kind: str) -> None:
    """A unit of work of each kind hands out exactly the repositories its protocol names."""
    expected = _repository_ports(KINDS[kind])
    with _open(uow, kind) as unit:
        handed_out = {name for name in expected if getattr(unit, name, None) is not None}

    assert handed_out == set(expected)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_repository_has_the_methods_of_its_port(uow: UnitOfWorkFactory, kind: str) -> None:
    """Each repository implements every method of its port, with the port's parameters."""
    differences = []
    with _open(uow, kind) as unit:
        for name, port in _repository_ports(KINDS[kind]).items():
            repository = type(getattr(unit, name))
            for method, signature in _methods(port).items():
                implemented = getattr(repository, method, None)
                if implemented is None:
                    differences.append(f"{repository.__name__}.{method} is missing")
                elif _shape(inspect.signature(implemented)) != _shape(signature):
                    differences.append(f"{repository.__name__}.{method}{inspect.signature(implemented)} != {signature}")

    assert differences == []
