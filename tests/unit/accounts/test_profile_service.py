"""The workspace's locale: the language tag rule, its canonical case, and `AccountProfileService`."""

from __future__ import annotations

import pytest

from engage_core.accounts.model import DEFAULT_LOCALE, parse_locale
from engage_core.accounts.profile_service import ProfilePatch
from engage_core.kernel.errors import ValidationFailed
from engage_core.services import Services
from engage_core.testing import FakeClock


@pytest.mark.parametrize(
    ("given", "canonical"),
    [
        ("en", "en"),
        ("en-us", "en-US"),
        ("AR-sa", "ar-SA"),
        ("zh-hant-tw", "zh-Hant-TW"),
        ("es-419", "es-419"),
        ("fil", "fil"),
        ("SR-LATN", "sr-Latn"),
    ],
)
def test_a_language_tag_is_put_in_canonical_case(given: str, canonical: str) -> None:
    """Language lower case, script title case, region upper case."""
    assert parse_locale("locale", given) == canonical


@pytest.mark.parametrize(
    "given",
    [
        "",
        "e",
        "engl",
        "en_US",
        "en-",
        "-US",
        "en-U",
        "en-USA",
        "en-1234",
        "en-Latn-US-x",
        " en",
        "en\n",
        "én",
        "en-US-US",
    ],
)
def test_a_malformed_tag_is_refused_on_its_field(given: str) -> None:
    """Anything but language, optional script, optional region is a 422 naming the field."""
    with pytest.raises(ValidationFailed) as raised:
        parse_locale("locale", given)

    assert list(raised.value.errors) == ["locale"]


def test_a_new_workspace_speaks_english(services: Services, account_id: int) -> None:
    """The locale is `en` until set."""
    assert services.account_profile.get(account_id).account.locale == DEFAULT_LOCALE == "en"


def test_update_stores_the_canonical_locale(services: Services, account_id: int) -> None:
    """`PATCH` with `pt-br` stores and returns `pt-BR`."""
    services.account_profile.update(account_id, ProfilePatch(locale="pt-br"))

    assert services.account_profile.get(account_id).account.locale == "pt-BR"


def test_a_new_locale_touches_updated_at(services: Services, account_id: int, clock: FakeClock) -> None:
    """Changing the locale moves the account's `updated_at` to now."""
    clock.advance(minutes=5)

    updated = services.account_profile.update(account_id, ProfilePatch(locale="de")).account

    assert updated.updated_at == clock.now()


def test_a_bad_locale_changes_nothing(services: Services, account_id: int) -> None:
    """A bad locale sent with a good name is refused on `locale`, and the name is not stored."""
    with pytest.raises(ValidationFailed) as raised:
        services.account_profile.update(account_id, ProfilePatch(name="Renamed", locale="english"))

    assert (list(raised.value.errors), services.account_profile.get(account_id).account.name) == (["locale"], "Acme")


def test_a_rename_keeps_the_locale(services: Services, account_id: int) -> None:
    """A patch without `locale` leaves it as it was."""
    services.account_profile.update(account_id, ProfilePatch(locale="ar-SA"))
    services.account_profile.update(account_id, ProfilePatch(name="Renamed"))

    assert services.account_profile.get(account_id).account.locale == "ar-SA"
