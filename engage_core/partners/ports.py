"""What partners need from storage: partners, their clients, impersonation tokens and partner webhooks."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Protocol

from engage_core.kernel.pagination import Page, PageRequest
from engage_core.partners.model import Client, ClientDraft, ClientFilter, Impersonation, Partner, PartnerDraft
from engage_core.plans.usage import UsageCounts
from engage_core.webhooks.model import Subscription


class PartnerRepository(Protocol):
    """Every partner (`engage_core.partners`): administration and partner-key authentication.
    Slugs are unique (a unique index); key digests are unique."""

    def add(self, draft: PartnerDraft, key_digest: str, key_hint: str, now: datetime) -> Partner | None:
        """Store the partner, status `active`, `created_at` = `updated_at` = `now`. None, storing
        nothing, when the slug is taken, also by a partner created concurrently since the caller
        looked (the unique index decides)."""

    def get(self, partner_id: int) -> Partner | None:
        """The partner `partner_id`, or None."""

    def by_key_digest(self, key_digest: str) -> tuple[Partner, str] | None:
        """The partner whose key has this digest, with the stored digest (compared again in
        constant time)."""

    def slug_taken(self, slug: str) -> bool:
        """Whether a partner has this slug."""

    def list(self) -> Sequence[Partner]:
        """Ascending id."""

    def set_key(self, partner_id: int, key_digest: str, key_hint: str, now: datetime) -> None:
        """Store the new key and advance `key_generation` by one."""

    def advance_key_generation(self, partner_id: int) -> None:
        """Advance `key_generation` by one, in one statement (`key_generation + 1`), so that two
        concurrent advances never merge into one."""

    def update(self, partner: Partner) -> None:
        """Store `company_name`, `email`, `plan`, `status`, `client_seats_max`, `branding` and
        `updated_at` (never the key, its hint or `key_generation`)."""


class ClientRepository(Protocol):
    """Client workspaces of partners. Every method but `of_account`, `email_in_use` and
    `slug_taken` names the partner, and sees only that partner's clients: another partner's
    client is None, which the services turn into 404.

    Clients are returned with their schedule (`plans.ScheduledPlan`) and primary user joined in.
    A client row references its account (`ON DELETE CASCADE`); slugs and primary e-mail keys
    (`partners.email_key`) are unique across all clients (unique indexes)."""

    def lock_partner(self, partner_id: int) -> None:
        """Serialise seat-counting writes of this partner until the transaction ends (PostgreSQL:
        `SELECT 1 FROM partners WHERE id = :p FOR UPDATE`; SQLite: nothing, `BEGIN IMMEDIATE`).
        Called before `count` when adding a client, so concurrent creates never exceed
        `client_seats_max`."""

    def add(self, partner_id: int, account_id: int, draft: ClientDraft, now: datetime) -> Client | None:
        """Store the client of the new workspace `account_id`: status `pending_setup`, schedule
        `ScheduledPlan(draft.plan, cycle_anchor=now)`, `created_at` = `updated_at` = `now`. None,
        storing nothing, when the slug or the admin's address is taken, also by a client of any
        partner created concurrently since the caller looked (the unique indexes decide)."""

    def get(self, partner_id: int, client_id: int) -> Client | None:
        """The partner's client `client_id`, or None (also when it is another partner's)."""

    def of_account(self, account_id: int) -> Client | None:
        """The client whose workspace this is, of any partner; None for a workspace without a
        partner. Called on every authenticated request: a primary-key look-up."""

    def find(self, partner_id: int, filters: ClientFilter, page: PageRequest, now: datetime) -> Page[Client]:
        """`filters.matches(client, now)` semantics (the plan filter compares the plan in force at
        `now`: `CASE WHEN pending_from <= :now THEN pending_plan ELSE plan END`); newest first
        (`created_at`, then `id`, descending)."""

    def list(self, partner_id: int) -> Sequence[Client]:
        """Every client of the partner, ascending id (the usage summary)."""

    def usage(self, partner_id: int, start: datetime, end: datetime) -> Mapping[int, UsageCounts]:
        """For every client of the partner, by client id, what its `UsageRepository.report(start,
        end)` gives for `messages_sent`, `contacts_total` and `ai_agent_sessions` (the same
        definitions). In a constant number of statements whatever the number of clients: the
        counts are grouped by account over the partner's clients, never read one client at a time."""

    def count(self, partner_id: int) -> int:
        """Seats used: the partner's clients in any status."""

    def email_in_use(self, email: str) -> bool:
        """Whether a client of any partner has a primary user with this address (`email_key`)."""

    def slug_taken(self, slug: str) -> bool:
        """Whether a client of any partner has this slug."""

    def update(self, client: Client) -> None:
        """Store `company_name`, `status`, the schedule, the primary user's id, `timezone`,
        `suspended_at`, `suspension_reason` and `updated_at`."""

    def delete(self, partner_id: int, client_id: int) -> None:
        """Remove the client, its workspace account and every record of that workspace: every
        row of every table with `account_id` = the client's id (foreign keys `ON DELETE CASCADE`
        from `accounts`, or explicit deletes in dependency order), including the webhook delivery
        log, the counters and anything added by later migrations. Irreversible."""


class ImpersonationRepository(Protocol):
    """Single-use impersonation tokens, stored as SHA-256 digests only."""

    def add(self, token_digest: str, grant: Impersonation, expires_at: datetime, now: datetime) -> None:
        """Store the token's digest with its grant, `key_generation` included."""

    def redeem(self, token_digest: str, now: datetime) -> Impersonation | None:
        """Use the token: atomically mark it used and return its grant, when it exists, was never
        used and `now < expires_at`; otherwise None and nothing changes. One statement, so two
        concurrent redeems of one token never both succeed: `UPDATE impersonation_tokens SET
        used_at = :now WHERE digest = :d AND used_at IS NULL AND expires_at > :now RETURNING
        partner_id, account_id, key_generation`."""


class PartnerWebhookRepository(Protocol):
    """Partner-level webhook subscriptions (`webhooks.Subscription`, events from
    `events.PARTNER_CATALOGUE`). Secrets are stored as ciphertext. Deliveries are attempts of
    kind `partner` in the same delivery log the workspace outbox writes (`webhooks.Claim.kind`)."""

    def add(
        self,
        partner_id: int,
        name: str,
        url: str,
        events: tuple[str, ...],
        is_active: bool,
        secret_ciphertext: str,
        now: datetime,
    ) -> Subscription:
        """Store a new subscription of the partner with its encrypted secret."""

    def get(self, partner_id: int, webhook_id: int) -> Subscription | None:
        """The partner's subscription `webhook_id`, or None (also when it is another partner's)."""

    def list(self, partner_id: int) -> Sequence[Subscription]:
        """Oldest first."""

    def update(self, partner_id: int, subscription: Subscription) -> None:
        """Store `name`, `url`, `events`, `is_active` and `updated_at`."""

    def delete(self, partner_id: int, webhook_id: int) -> None:
        """Delete the subscription and its delivery log."""


class PartnersRepositories(Protocol):
    """The partners area's repositories, as the partners' unit of work hands them out."""

    @property
    def partners(self) -> PartnerRepository:
        """The partners."""

    @property
    def clients(self) -> ClientRepository:
        """The partners' client workspaces."""

    @property
    def impersonations(self) -> ImpersonationRepository:
        """The impersonation tokens."""

    @property
    def partner_webhooks(self) -> PartnerWebhookRepository:
        """The partner-level webhook subscriptions."""
