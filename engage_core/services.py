"""Use cases. Each service takes a unit-of-work factory and a clock, and nothing else."""

from __future__ import annotations

import attrs

from engage_core.accounts.account_service import AccountService
from engage_core.accounts.profile_service import AccountProfileService
from engage_core.bookings.booking_service import BookingService
from engage_core.bookings.setup_service import BookingSetupService
from engage_core.commerce.order_service import OrderService
from engage_core.commerce.ports import StorePlatform
from engage_core.commerce.product_service import ProductService
from engage_core.contacts.contact_service import ContactService
from engage_core.contacts.list_service import ContactListService
from engage_core.contacts.segment_service import SegmentService
from engage_core.contacts.tag_service import TagService
from engage_core.kernel.clock import Clock, SystemClock
from engage_core.kernel.mail import LoggingMailer, Mailer
from engage_core.messaging.channel_service import ChannelService
from engage_core.messaging.channels import NoActiveCampaigns
from engage_core.messaging.inbox_service import ChannelInbox
from engage_core.messaging.message_service import MessageService
from engage_core.messaging.ports import CampaignGuard, ChannelGateway
from engage_core.partners.client_service import PartnerClientService
from engage_core.partners.partner_service import PartnerService
from engage_core.plans.entitlements import Entitlements
from engage_core.plans.model import DEFAULT_PLAN
from engage_core.plans.plan_service import PlanService
from engage_core.plans.ports import FeatureGate
from engage_core.support.department_service import DepartmentService
from engage_core.support.ticket_service import TicketService
from engage_core.team.model import DEFAULT_APP_URL
from engage_core.team.ports import PasswordHasher
from engage_core.team.service import TeamService
from engage_core.unit_of_work import UnitOfWorkFactory
from engage_core.webhooks.ports import SecretCipher, TargetGuard
from engage_core.webhooks.service import WebhookService


class _Unconfigured:
    """Stands in for a port the caller did not wire; fails loudly, naming what to pass."""

    def __init__(self, what: str, needed_by: str) -> None:
        self._what = what
        self._needed_by = needed_by

    def __getattr__(self, name: str) -> object:
        raise RuntimeError(f"Services.build() was not given {self._what}; {self._needed_by} need it.")


@attrs.frozen
class Services:
    """Every use case, wired to one storage adapter and one clock."""

    accounts: AccountService
    account_profile: AccountProfileService
    contacts: ContactService
    tags: TagService
    lists: ContactListService
    segments: SegmentService
    webhooks: WebhookService
    products: ProductService
    orders: OrderService
    channels: ChannelService
    messages: MessageService
    inbox: ChannelInbox
    departments: DepartmentService
    tickets: TicketService
    team: TeamService
    bookings: BookingService
    booking_setup: BookingSetupService
    plans: PlanService
    entitlements: Entitlements
    partners: PartnerService
    partner_clients: PartnerClientService

    @classmethod
    def build(
        cls,
        uow: UnitOfWorkFactory,
        clock: Clock | None = None,
        *,
        cipher: SecretCipher | None = None,
        guard: TargetGuard | None = None,
        store: StorePlatform | None = None,
        gateway: ChannelGateway | None = None,
        campaigns: CampaignGuard | None = None,
        features: FeatureGate | None = None,
        hasher: PasswordHasher | None = None,
        mailer: Mailer | None = None,
        app_url: str = DEFAULT_APP_URL,
        default_plan: str = DEFAULT_PLAN,
    ) -> Services:
        """Wire every service. `cipher` (secrets at rest) and `guard` (SSRF checks of target URLs)
        come from `engage_connectors`; without them everything but webhooks works. `store` is the
        connected online store; without it everything works but status changes of store-sourced
        orders (which only a store integration creates). `gateway` reaches the messaging networks
        (`engage_core.messaging.sandbox.SandboxGateway` offline); without it everything but
        connecting channels and sending works (listing, receiving and receipts do). A gateway that
        calls back (the sandbox) is then attached to `inbox`. `campaigns` answers whether a campaign
        holds a channel (none, by default); `features` gates plan features (the workspace's plan, by
        default); the plan's limits apply to creating contacts, team members and channel settings
        and to sending. `hasher` hashes team members' passwords (argon2id from `engage_connectors`);
        without it everything but adding members, changing passwords and signing in works.
        `mailer` sends invitations (logged only, by default); they link to the sign-in page under
        `app_url`. `default_plan` is the plan of every workspace without a partner."""
        clock = clock or SystemClock()
        cipher = cipher or _Unconfigured("cipher=SecretCipher", "webhooks")  # type: ignore[assignment]
        guard = guard or _Unconfigured("guard=TargetGuard", "webhooks")  # type: ignore[assignment]
        store = store or _Unconfigured("store=StorePlatform", "status changes of store-sourced orders")  # type: ignore[assignment]
        hasher = hasher or _Unconfigured("hasher=PasswordHasher", "team member passwords")  # type: ignore[assignment]
        gateway = gateway or _Unconfigured("gateway=ChannelGateway", "channels and sending")  # type: ignore[assignment]
        assert cipher is not None and guard is not None and store is not None and gateway is not None
        assert hasher is not None
        entitlements = Entitlements(uow, clock, default_plan)
        # The plan's feature gate unless the caller gives another; limits always follow the plan.
        partner_clients = PartnerClientService(uow, clock, hasher, mailer or LoggingMailer(), app_url)
        channels = ChannelService(
            uow,
            clock,
            gateway,
            campaigns or NoActiveCampaigns(),
            features or entitlements,
            entitlements,
            relay=partner_clients.relay_channel_event,
        )
        messages = MessageService(uow, clock, gateway, entitlements)
        return cls(
            accounts=AccountService(uow, clock, default_plan),
            account_profile=AccountProfileService(uow, clock),
            contacts=ContactService(uow, clock, entitlements),
            tags=TagService(uow, clock),
            lists=ContactListService(uow, clock),
            segments=SegmentService(uow, clock),
            webhooks=WebhookService(uow, clock, cipher, guard),
            products=ProductService(uow, clock),
            orders=OrderService(uow, clock, store),
            channels=channels,
            messages=messages,
            inbox=ChannelInbox(uow, channels, messages),
            departments=DepartmentService(uow, clock),
            tickets=TicketService(uow, clock),
            team=TeamService(
                uow,
                clock,
                hasher,
                mailer or LoggingMailer(),
                app_url,
                entitlements,
                sign_in_check=partner_clients.ensure_not_suspended,
            ),
            bookings=BookingService(uow, clock),
            booking_setup=BookingSetupService(uow, clock),
            plans=PlanService(uow, clock),
            entitlements=entitlements,
            partners=PartnerService(uow, clock, cipher, guard),
            partner_clients=partner_clients,
        )


__all__ = [
    "AccountProfileService",
    "AccountService",
    "BookingService",
    "BookingSetupService",
    "ChannelInbox",
    "ChannelService",
    "ContactListService",
    "ContactService",
    "DepartmentService",
    "Entitlements",
    "MessageService",
    "OrderService",
    "PartnerClientService",
    "PartnerService",
    "PlanService",
    "ProductService",
    "SegmentService",
    "Services",
    "TagService",
    "TeamService",
    "TicketService",
    "WebhookService",
]
