"""Partner client provisioning (SPEC 4 Partner API: `POST /partner/clients`, `PATCH /partner/clients/{id}`)."""

from __future__ import annotations

from hypothesis import strategies as st

from engage_core.kernel.unset import UNSET
from engage_core.partners.client_service import AdminInput, ClientInput, ClientPatch
from engage_core.partners.model import COMPANY_MAX, NAME_MAX
from engage_core.plans.model import PLAN_SLUGS

from ._text import blanks, broken, field, texts, too_long
from .bookings import TIMEZONES
from .contacts import emails, phones

plans = st.sampled_from(PLAN_SLUGS)
"""The plans a client may be put on."""


def admin_inputs(*, invalid: bool = False) -> st.SearchStrategy[AdminInput]:
    """The client's first admin; `invalid=True` draws a blank or long name or an e-mail that is not one."""
    valid = st.builds(
        AdminInput, texts(NAME_MAX), texts(NAME_MAX), emails, phone=st.none() | phones
    )  # fmt: skip
    if not invalid:
        return valid
    return broken(
        valid,
        field("first_name", blanks() | too_long(NAME_MAX)),
        field("last_name", blanks() | too_long(NAME_MAX)),
        field("email", st.sampled_from(["", "ada", "ada@", "@example.com", "ada example.com"])),
        field("phone", st.sampled_from(["12", "not a phone"])),
    )


def client_inputs(*, invalid: bool = False) -> st.SearchStrategy[ClientInput]:
    """`POST /partner/clients` bodies (the invitation skipped or not); `invalid=True` draws a blank or
    long company name, an unknown plan or timezone, a country id below 1, or an invalid admin."""
    valid = st.builds(
        ClientInput,
        company_name=texts(COMPANY_MAX),
        plan=plans,
        admin=admin_inputs(),
        timezone=st.sampled_from(TIMEZONES),
        country_id=st.none() | st.integers(1, 250),
        skip_invite=st.booleans(),
    )
    if not invalid:
        return valid
    return broken(
        valid,
        field("company_name", blanks() | too_long(COMPANY_MAX)),
        field("plan", st.sampled_from(["free", "enterprise", "", "PRO"])),
        field("timezone", st.sampled_from(["Mars/Olympus", "UTC+3", ""])),
        field("country_id", st.integers(-5, 0)),
        field("admin", admin_inputs(invalid=True)),
    )


def client_patches(*, invalid: bool = False) -> st.SearchStrategy[ClientPatch]:
    """`PATCH /partner/clients/{id}` bodies: any subset of the fields, the plan change at once or at
    the next billing boundary; `invalid=True` draws one field a change refuses."""
    valid = st.builds(
        ClientPatch,
        company_name=st.just(UNSET) | texts(COMPANY_MAX),
        plan=st.just(UNSET) | plans,
        timezone=st.just(UNSET) | st.sampled_from(TIMEZONES),
        immediate=st.booleans(),
    )
    if not invalid:
        return valid
    return broken(
        valid,
        field("company_name", blanks() | too_long(COMPANY_MAX)),
        field("plan", st.sampled_from(["free", "enterprise", ""])),
        field("timezone", st.sampled_from(["Mars/Olympus", ""])),
    )
