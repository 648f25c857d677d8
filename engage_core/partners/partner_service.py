"""Partners: create (CLI), keys, suspend and activate, authenticate, and partner-level webhooks.

Partner keys are issued like workspace keys (`engage_core.accounts.keys`) with the `enp_` prefix: a
workspace key is never well formed as a partner key, nor the other way round, so the two are told
apart before storage is asked. Only the digest is stored; the plaintext is returned once.
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from engage_core.accounts import keys as api_keys
from engage_core.kernel.clock import Clock
from engage_core.kernel.errors import NotFound, Unauthenticated, ValidationFailed
from engage_core.kernel.events import EVENTS_MAX, PARTNER_CATALOGUE
from engage_core.kernel.unset import UNSET, Unset
from engage_core.kernel.validation import ErrorCollector, one_of, required_text
from engage_core.partners.model import (
    COMPANY_MAX,
    PARTNER_PLANS,
    PARTNER_SEATS,
    Partner,
    PartnerDraft,
    partner_refusal,
    slugify,
)
from engage_core.team.model import required_email
from engage_core.unit_of_work import PartnerUnitOfWork, UnitOfWorkFactory
from engage_core.webhooks.model import NAME_MAX, Subscription, check_target
from engage_core.webhooks.ports import SecretCipher, TargetGuard
from engage_core.webhooks.signatures import generate_secret

SEATS_MAX = 100_000
UNAUTHENTICATED = "Unauthenticated. Provide a valid X-Partner-Key."


@attrs.frozen
class NewPartnerKey:
    """A partner with the plaintext key just issued for it (shown once)."""

    partner: Partner
    partner_key: str


@attrs.frozen
class PartnerWebhookInput:
    """Fields of `POST /partner/webhooks`. No `events` subscribes to every partner event."""

    name: str
    url: str
    events: Sequence[str] = ()
    is_active: bool = True


@attrs.frozen
class PartnerWebhookPatch:
    """Fields of `PUT /partner/webhooks/{id}`: any subset; `UNSET` leaves a field alone."""

    name: str | Unset = UNSET
    is_active: bool | Unset = UNSET


@attrs.frozen
class RevealedPartnerSecret:
    """A partner subscription with its plaintext secret: only ever returned by its creation."""

    subscription: Subscription
    secret: str


class PartnerService:
    """Partners (resellers): their administration and keys, partner-key authentication, and partner-level
    webhooks. Methods that name a partner raise :class:`.NotFound` when there is none.

    Partner webhooks need the `cipher` and `guard` ports: without them those methods raise
    `RuntimeError`."""

    def __init__(
        self, uow: UnitOfWorkFactory, clock: Clock, cipher: SecretCipher | None = None, guard: TargetGuard | None = None
    ) -> None:
        self._uow = uow
        self._clock = clock
        self._cipher = cipher
        self._guard = guard

    # -- partners (administration) ----------------------------------------------------------------

    def create(
        self, company_name: str, email: str, plan: str = "agency", client_seats_max: int | None = None
    ) -> NewPartnerKey:
        """`engage partners create`: the partner, active, with its first key."""
        errors = ErrorCollector()
        company = errors.run(lambda: required_text("company_name", company_name, max_length=COMPANY_MAX))
        address = errors.run(lambda: required_email("email", email))
        errors.run(lambda: one_of("plan", plan, PARTNER_PLANS))
        seats = PARTNER_SEATS.get(plan, 0) if client_seats_max is None else client_seats_max
        if not 0 <= seats <= SEATS_MAX:
            errors.errors["client_seats_max"] = [f"The client seats must be from 0 to {SEATS_MAX}."]
        errors.raise_if_any()
        assert company is not None and address is not None
        key = api_keys.generate_key(api_keys.PARTNER_PREFIX)
        with self._uow.partners() as uow:
            partner = None
            while partner is None:  # None: a partner of the same slug was created meanwhile; the next is free
                draft = PartnerDraft(company, _free_slug(uow, company), address, plan, seats)
                partner = uow.partners.add(draft, key.digest, key.hint, self._clock.now())
            uow.commit()
        return NewPartnerKey(partner, key.plaintext)

    def list(self) -> Sequence[Partner]:
        """Every partner, ascending id."""
        with self._uow.partners(readonly=True) as uow:
            return uow.partners.list()

    def get(self, partner_id: int) -> Partner:
        """`GET /partner/profile` (with branding)."""
        with self._uow.partners(readonly=True) as uow:
            return _partner(uow, partner_id)

    def rotate_key(self, partner_id: int) -> NewPartnerKey:
        """Issue a new key; the old one stops working when this returns, and so does every login
        link and dashboard session it minted (the key generation advances)."""
        key = api_keys.generate_key(api_keys.PARTNER_PREFIX)
        with self._uow.partners() as uow:
            _partner(uow, partner_id)
            uow.partners.set_key(partner_id, key.digest, key.hint, self._clock.now())
            partner = _partner(uow, partner_id)
            uow.commit()
        return NewPartnerKey(partner, key.plaintext)

    def suspend(self, partner_id: int) -> Partner:
        """Refuse the partner's key (403) until activated, and end its impersonations for good (the
        key generation advances: activating it again revives no link or session). Its clients'
        own keys and sign-ins keep working."""
        return self._set_status(partner_id, "suspended")

    def activate(self, partner_id: int) -> Partner:
        """Accept the partner's key again after a suspension; earlier login links and sessions stay void.

        Raises :class:`.NotFound` when there is no such partner."""
        return self._set_status(partner_id, "active")

    def set_seats(self, partner_id: int, client_seats_max: int) -> Partner:
        """Set how many client workspaces the partner may have.

        Raises :class:`.ValidationFailed` on `client_seats_max` outside 0 to `SEATS_MAX`;
        :class:`.NotFound` when there is no such partner."""
        if not 0 <= client_seats_max <= SEATS_MAX:
            raise ValidationFailed.on("client_seats_max", f"The client seats must be from 0 to {SEATS_MAX}.")
        with self._uow.partners() as uow:
            partner = attrs.evolve(
                _partner(uow, partner_id), client_seats_max=client_seats_max, updated_at=self._clock.now()
            )
            uow.partners.update(partner)
            uow.commit()
        return partner

    def authenticate(self, raw_key: str | None) -> Partner:
        """The partner an `X-Partner-Key` request acts for (SPEC 5 item 6). Every kind of bad key
        (absent, a workspace key, malformed, unknown) is the same 401; a suspended or pending
        partner's valid key is 403."""
        if not raw_key or not api_keys.is_well_formed(raw_key, api_keys.PARTNER_PREFIX):
            raise Unauthenticated(UNAUTHENTICATED)
        digest = api_keys.digest_key(raw_key)
        with self._uow.partners(readonly=True) as uow:
            found = uow.partners.by_key_digest(digest)
        if found is None or not api_keys.digests_match(found[1], digest):
            raise Unauthenticated(UNAUTHENTICATED)
        if not found[0].is_active:
            raise partner_refusal()
        return found[0]

    def _set_status(self, partner_id: int, status: str) -> Partner:
        with self._uow.partners() as uow:
            partner = attrs.evolve(_partner(uow, partner_id), status=status, updated_at=self._clock.now())
            uow.partners.update(partner)
            if status != "active":
                uow.partners.advance_key_generation(partner_id)
            partner = _partner(uow, partner_id)
            uow.commit()
        return partner

    # -- partner-level webhooks ---------------------------------------------------------------------

    def create_webhook(self, partner_id: int, data: PartnerWebhookInput) -> RevealedPartnerSecret:
        """A subscription to `partner.client.*` events (an empty list: every one). HTTPS only, and
        the target must pass the SSRF guard. The 64-character secret is returned once."""
        cipher, guard = self._webhook_ports()
        errors = ErrorCollector()
        name = errors.run(lambda: required_text("name", data.name, max_length=NAME_MAX))
        refusal = check_target(data.url) or guard.refusal(data.url)
        if refusal is not None:
            errors.errors["url"] = [refusal]
        unknown = [event for event in data.events if event not in PARTNER_CATALOGUE]
        if len(data.events) > EVENTS_MAX:
            errors.errors["events"] = [f"The events may not have more than {EVENTS_MAX} items."]
        elif unknown:
            errors.errors["events"] = ["Unknown events: " + ", ".join(unknown) + "."]
        errors.raise_if_any()
        assert name is not None
        secret = generate_secret()
        with self._uow.partners() as uow:
            _partner(uow, partner_id)
            created = uow.partner_webhooks.add(
                partner_id,
                name,
                data.url,
                tuple(dict.fromkeys(data.events)),
                data.is_active,
                cipher.encrypt(secret),
                self._clock.now(),
            )
            uow.commit()
        return RevealedPartnerSecret(created, secret)

    def webhooks(self, partner_id: int) -> Sequence[Subscription]:
        """The partner's webhook subscriptions, oldest first."""
        with self._uow.partners(readonly=True) as uow:
            return uow.partner_webhooks.list(partner_id)

    def update_webhook(self, partner_id: int, webhook_id: int, patch: PartnerWebhookPatch) -> Subscription:
        """Rename and/or enable or disable one of the partner's subscriptions.

        Raises :class:`.ValidationFailed` for a blank or too long name; :class:`.NotFound` when the
        subscription is not the partner's."""
        name = None if patch.name is UNSET else required_text("name", str(patch.name), max_length=NAME_MAX)
        with self._uow.partners() as uow:
            current = _webhook(uow, partner_id, webhook_id)
            changed = attrs.evolve(
                current,
                name=name or current.name,
                is_active=current.is_active if patch.is_active is UNSET else bool(patch.is_active),
            )
            if changed != current:
                changed = attrs.evolve(changed, updated_at=self._clock.now())
                uow.partner_webhooks.update(partner_id, changed)
                uow.commit()
        return changed

    def delete_webhook(self, partner_id: int, webhook_id: int) -> None:
        """Delete one of the partner's subscriptions and its delivery log.

        Raises :class:`.NotFound` when the subscription is not the partner's."""
        with self._uow.partners() as uow:
            _webhook(uow, partner_id, webhook_id)
            uow.partner_webhooks.delete(partner_id, webhook_id)
            uow.commit()

    def _webhook_ports(self) -> tuple[SecretCipher, TargetGuard]:
        if self._cipher is None or self._guard is None:
            raise RuntimeError("PartnerService was not given a cipher and a guard; partner webhooks need them.")
        return self._cipher, self._guard


def _free_slug(uow: PartnerUnitOfWork, company: str) -> str:
    base = slugify(company)
    slug, n = base, 1
    while uow.partners.slug_taken(slug):
        n += 1
        slug = f"{base}-{n}"
    return slug


def _partner(uow: PartnerUnitOfWork, partner_id: int) -> Partner:
    partner = uow.partners.get(partner_id)
    if partner is None:
        raise NotFound("Partner")
    return partner


def _webhook(uow: PartnerUnitOfWork, partner_id: int, webhook_id: int) -> Subscription:
    subscription = uow.partner_webhooks.get(partner_id, webhook_id)
    if subscription is None:
        raise NotFound("Webhook")
    return subscription
