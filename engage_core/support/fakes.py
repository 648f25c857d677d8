"""In-memory fakes of support's ports (departments, tickets)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import attrs

from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.memory import FakeArea, Repo, Tables
from engage_core.kernel.pagination import Page, PageRequest, paginate
from engage_core.support.departments import Department
from engage_core.support.departments import title_key as department_title_key
from engage_core.support.tickets import ReplyDraft, Ticket, TicketDraft, TicketFilter, TicketReply


@attrs.define
class SupportTables(Tables):
    """The support area's rows, by table."""

    departments: dict[int, tuple[int, Department]] = attrs.Factory(dict)
    tickets: dict[int, tuple[int, Ticket, int | None]] = attrs.Factory(dict)  # id -> (account, ticket, department id)
    ticket_replies: dict[int, tuple[int, int, TicketReply]] = attrs.Factory(dict)  # id -> (account, ticket id, reply)
    ticket_numbers: dict[int, int] = attrs.Factory(dict)  # account_id -> last ticket number


class _Repo(Repo):
    @property
    def _t(self) -> SupportTables:
        """This area\'s tables, as the transaction sees them."""
        return self._state.of(SupportTables)


class InMemoryDepartmentRepository(_Repo):
    """The in-memory :class:`.DepartmentRepository`."""

    def _mine(self) -> list[Department]:
        return sorted((d for (a, d) in self._t.departments.values() if a == self._account), key=lambda d: d.id)

    def _taken(self, title: str, other_than: int | None = None) -> None:
        found = self.by_title(title)
        if found is not None and found.id != other_than:
            raise ValidationFailed.on("title", "A department with this title already exists.")

    def ensure_default(self, title: str, now: datetime) -> Department:
        """In memory, as :meth:`.DepartmentRepository.ensure_default`."""
        mine = self._mine()
        return mine[0] if mine else self.add(title, now)

    def add(self, title: str, now: datetime) -> Department:
        """In memory, as :meth:`.DepartmentRepository.add`."""
        self._taken(title)
        department = Department(self._store.next_id(), title, now, now)
        self._t.departments[department.id] = (self._account, department)
        return department

    def get(self, department_id: int) -> Department | None:
        """In memory, as :meth:`.DepartmentRepository.get`."""
        row = self._t.departments.get(department_id)
        return None if row is None or row[0] != self._account else row[1]

    def by_title(self, title: str) -> Department | None:
        """In memory, as :meth:`.DepartmentRepository.by_title`."""
        key = department_title_key(title)
        return next((d for d in self._mine() if department_title_key(d.title) == key), None)

    def list(self) -> Sequence[Department]:
        """In memory, as :meth:`.DepartmentRepository.list`."""
        return self._mine()

    def rename(self, department_id: int, title: str, now: datetime) -> None:
        """In memory, as :meth:`.DepartmentRepository.rename`."""
        department = self.get(department_id)
        if department is not None:
            self._taken(title, other_than=department_id)
            self._t.departments[department_id] = (self._account, attrs.evolve(department, title=title, updated_at=now))

    def delete(self, department_id: int) -> None:
        """In memory, as :meth:`.DepartmentRepository.delete`."""
        if self.get(department_id) is None:
            return
        del self._t.departments[department_id]
        for ticket_id, (account, ticket, filed_under) in list(self._t.tickets.items()):
            if filed_under == department_id:
                self._t.tickets[ticket_id] = (account, ticket, None)


class InMemoryTicketRepository(_Repo):
    """Ticket rows keep the department's id; reads join the department as it is now."""

    def _joined(self, ticket: Ticket, department_id: int | None) -> Ticket:
        department = None if department_id is None else self._t.departments[department_id][1]
        return attrs.evolve(ticket, department=department)

    def _mine(self) -> list[Ticket]:
        return [self._joined(t, d) for (a, t, d) in self._t.tickets.values() if a == self._account]

    def _store_row(self, ticket: Ticket) -> None:
        self._t.tickets[ticket.id] = (self._account, attrs.evolve(ticket, department=None), ticket.department_id)

    def next_number(self) -> int:
        """In memory, as :meth:`.TicketRepository.next_number`."""
        number = self._t.ticket_numbers.get(self._account, 0) + 1
        self._t.ticket_numbers[self._account] = number
        return number

    def add(self, draft: TicketDraft, now: datetime) -> Ticket:
        """In memory, as :meth:`.TicketRepository.add`."""
        if any(t.ticket_id == draft.ticket_id for t in self._mine()):
            raise ValueError(f"the reference {draft.ticket_id} is already taken in this account")
        ticket = Ticket(
            id=self._store.next_id(),
            ticket_id=draft.ticket_id,
            subject=draft.subject,
            body=draft.body,
            priority=draft.priority,
            status=draft.status,
            department=None,
            assignee_id=draft.assignee_id,
            last_reply_at=None,
            closed_at=None,
            created_at=now,
            updated_at=now,
        )
        self._t.tickets[ticket.id] = (self._account, ticket, draft.department_id)
        return self._joined(ticket, draft.department_id)

    def get(self, ticket_id: int) -> Ticket | None:
        """In memory, as :meth:`.TicketRepository.get`."""
        row = self._t.tickets.get(ticket_id)
        return None if row is None or row[0] != self._account else self._joined(row[1], row[2])

    def by_reference(self, reference: str) -> Ticket | None:
        """In memory, as :meth:`.TicketRepository.by_reference`."""
        return next((t for t in self._mine() if t.ticket_id == reference), None)

    def find(self, filters: TicketFilter, page: PageRequest) -> Page[Ticket]:
        """In memory, as :meth:`.TicketRepository.find`."""
        found = sorted(
            (t for t in self._mine() if filters.matches(t)), key=lambda t: (t.created_at, t.id), reverse=True
        )
        return paginate(found, page)

    def update(self, ticket: Ticket) -> None:
        """In memory, as :meth:`.TicketRepository.update`."""
        current = self.get(ticket.id)
        if current is not None:
            self._store_row(
                attrs.evolve(
                    current,
                    status=ticket.status,
                    priority=ticket.priority,
                    department=ticket.department,
                    assignee_id=ticket.assignee_id,
                    last_reply_at=ticket.last_reply_at,
                    closed_at=ticket.closed_at,
                    updated_at=ticket.updated_at,
                )
            )

    def add_reply(self, ticket_id: int, draft: ReplyDraft, now: datetime) -> TicketReply:
        """In memory, as :meth:`.TicketRepository.add_reply`."""
        reply = TicketReply(self._store.next_id(), draft.reply, draft.type, draft.author_id, now)
        self._t.ticket_replies[reply.id] = (self._account, ticket_id, reply)
        return reply

    def replies(self, ticket_id: int) -> Sequence[TicketReply]:
        """In memory, as :meth:`.TicketRepository.replies`."""
        found = [r for (a, t, r) in self._t.ticket_replies.values() if a == self._account and t == ticket_id]
        return sorted(found, key=lambda r: (r.created_at, r.id))

    def unassign_member(self, member_id: int, now: datetime) -> Sequence[Ticket]:
        """In memory, as :meth:`.TicketRepository.unassign_member`."""
        assigned = sorted((t for t in self._mine() if t.assignee_id == member_id), key=lambda t: t.id)
        unassigned = [attrs.evolve(t, assignee_id=None, updated_at=now) for t in assigned]
        for ticket in unassigned:
            self._store_row(ticket)
        return unassigned


AREA = FakeArea(
    SupportTables, workspace={"departments": InMemoryDepartmentRepository, "tickets": InMemoryTicketRepository}
)
