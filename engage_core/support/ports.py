"""What support (tickets, departments) needs from storage."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from engage_core.kernel.pagination import Page, PageRequest
from engage_core.support.departments import Department
from engage_core.support.tickets import ReplyDraft, Ticket, TicketDraft, TicketFilter, TicketReply


class DepartmentRepository(Protocol):
    """Departments of one account (`engage_core.support.departments`). Titles are unique per account by
    `departments.title_key` (a unique index on `(account_id, title_key)`): `add` and `rename` raise
    ValidationFailed on `title` when another department has the key."""

    def ensure_default(self, title: str, now: datetime) -> Department:
        """The account's first department (lowest id), after adding one titled `title` if the
        account has none. Concurrency: transactions seeding at once leave exactly one department;
        SQL inserts with `ON CONFLICT (account_id, title_key) DO NOTHING` and then reads."""

    def add(self, title: str, now: datetime) -> Department:
        """Store a new department."""

    def get(self, department_id: int) -> Department | None:
        """The department `department_id`, or None."""

    def by_title(self, title: str) -> Department | None:
        """Case-insensitive look-up (see `departments.title_key`)."""

    def list(self) -> Sequence[Department]:
        """Ascending id: the first is the default department of new tickets."""

    def rename(self, department_id: int, title: str, now: datetime) -> None:
        """Give the department a new title."""

    def delete(self, department_id: int) -> None:
        """Delete the department; its tickets stay, with no department (`department_id` NULL,
        `updated_at` unchanged)."""


class TicketRepository(Protocol):
    """Support tickets of one account with their replies (`engage_core.support.tickets`).

    Tickets are returned with their department (id and title) joined in."""

    def next_number(self) -> int:
        """The account's next ticket number: 1 for its first ticket, then one more each time.
        Atomic: concurrent transactions of one account never get the same number. SQL keeps the
        last number on the account's `account_counters` row and takes the next with one statement,
        `UPDATE account_counters SET tickets = tickets + 1 WHERE account_id = :a RETURNING
        tickets`, whose row lock lasts until commit (a rolled-back number is handed out again);
        a unique index on `(account_id, ticket_id)` backs the guarantee."""

    def add(self, draft: TicketDraft, now: datetime) -> Ticket:
        """Store the ticket; `created_at` = `updated_at` = `now`, no replies, not closed."""

    def get(self, ticket_id: int) -> Ticket | None:
        """By numeric `id` (not the reference)."""

    def by_reference(self, reference: str) -> Ticket | None:
        """By the reference (`ticket_id`, `TKT-000123`), exactly as stored. Like `get`, in a write
        unit of work the SQL adapter locks the ticket it reads."""

    def find(self, filters: TicketFilter, page: PageRequest) -> Page[Ticket]:
        """Newest first (`created_at`, then `id`, descending)."""

    def update(self, ticket: Ticket) -> None:
        """Store `status`, `priority`, the department's id, `assignee_id`, `last_reply_at`,
        `closed_at` and `updated_at`."""

    def add_reply(self, ticket_id: int, draft: ReplyDraft, now: datetime) -> TicketReply:
        """Store a reply on the ticket; `created_at` = `now`. The ticket row itself is changed
        through `update`."""

    def replies(self, ticket_id: int) -> Sequence[TicketReply]:
        """The ticket's replies, oldest first (`created_at`, then `id`)."""

    def unassign_member(self, member_id: int, now: datetime) -> Sequence[Ticket]:
        """Set `assignee_id` to NULL and `updated_at` to `now` on every ticket assigned to the team
        member; the tickets as they are afterwards, ascending id (the service emits
        `ticket.updated` for each). Replies keep their `author_id`."""


class SupportRepositories(Protocol):
    """Support's repositories, as a workspace unit of work hands them out."""

    @property
    def departments(self) -> DepartmentRepository:
        """The departments."""

    @property
    def tickets(self) -> TicketRepository:
        """The tickets and their replies."""
