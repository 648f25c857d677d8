"""The kit's machines as bases: a subclass's invariants run after every step, the backend hook
gives the storage, and `refused` tells an accepted call from a refused one."""

from __future__ import annotations

import pytest
from hypothesis import settings
from hypothesis.stateful import invariant, run_state_machine_as_test

from engage_core.kernel.errors import NotFound, ValidationFailed
from engage_testing.machines import Backend, InMemoryBackend, OrderStockMachine, TicketMachine, refused

FEW = settings(max_examples=5, stateful_step_count=10, deadline=None, database=None)


class NoOrdersPromised(OrderStockMachine):
    """A user's invariant that engage breaks as soon as an order is placed."""

    @invariant()
    def no_order_was_placed(self) -> None:
        assert not self.model, "an order was placed"


def test_a_subclass_invariant_is_checked_after_every_step() -> None:
    """An invariant a subclass adds is run, and its failure fails the machine."""
    with pytest.raises(AssertionError, match="an order was placed"):
        run_state_machine_as_test(NoOrdersPromised, settings=settings(FEW, max_examples=50))


def test_the_backend_hook_gives_the_storage() -> None:
    """The machine works on the storage its make_backend() returns."""
    made: list[InMemoryBackend] = []

    class Counted(TicketMachine):
        def make_backend(self) -> Backend:
            made.append(InMemoryBackend())
            return made[-1]

    run_state_machine_as_test(Counted, settings=FEW)
    assert any(e.name == "ticket.created" for backend in made for e in backend.uow.store.events())


def test_refused_passes_when_the_call_raises_one_of_the_errors() -> None:
    """A call raising one of the errors named is what `refused` expects."""
    with refused(ValidationFailed, NotFound):
        raise NotFound("Order")


def test_refused_fails_when_the_call_is_accepted() -> None:
    """A call that raises nothing fails the check, naming what was expected."""
    with pytest.raises(AssertionError, match="expected ValidationFailed"), refused(ValidationFailed):
        pass


def test_refused_lets_other_errors_through() -> None:
    """An error not named is not swallowed."""
    with pytest.raises(KeyError), refused(ValidationFailed):
        raise KeyError("x")
