"""The pure team rules (e-mail key, password length, the invitation) and the shipped fakes of the
password hasher and the mailer."""

from __future__ import annotations

import logging

import pytest

from engage_core.kernel.errors import ValidationFailed
from engage_core.kernel.mail import LoggingMailer, MailMessage, MailNotConfigured, MailUndelivered
from engage_core.team.model import (
    PASSWORD_MAX,
    PASSWORD_MIN,
    TeamMember,
    check_password,
    email_key,
    invitation,
    login_link,
)
from engage_core.testing import FakeMailer, FakePasswordHasher

from ..factories import START


def member_entity(role: str = "agent") -> TeamMember:
    return TeamMember(3, "Grace Hopper", "Grace@Example.com", role, "active", START, START)


def test_email_keys_ignore_case_and_spaces() -> None:
    """`Ada@Example.com` and ` ada@example.com ` are one address."""
    assert email_key("Ada@Example.com") == email_key(" ada@example.com ")


def test_a_password_of_the_minimum_length_is_accepted() -> None:
    """SPEC 8: eight characters are enough."""
    assert check_password("x" * PASSWORD_MIN) == "x" * PASSWORD_MIN


def test_a_shorter_password_is_refused() -> None:
    """Seven characters is a 422 on password."""
    with pytest.raises(ValidationFailed) as caught:
        check_password("x" * (PASSWORD_MIN - 1))
    assert "at least 8" in caught.value.errors["password"][0]


def test_spaces_count_and_are_kept() -> None:
    """A password is never trimmed: spaces are characters of it."""
    assert check_password("  a b c  ") == "  a b c  "


def test_an_overlong_password_is_refused() -> None:
    """Passwords are bounded so hashing one costs nothing extra."""
    with pytest.raises(ValidationFailed):
        check_password("x" * (PASSWORD_MAX + 1))


def test_the_invitation_names_workspace_role_and_address() -> None:
    """The member learns where, as what, and with which address to sign in."""
    message = invitation(member_entity("admin"), "Acme", "https://app.example.com/")
    assert message.to == "Grace@Example.com"
    assert "Acme" in message.subject
    assert all(part in message.text for part in ("Acme", "admin", "Grace@Example.com"))


def test_the_invitation_links_to_sign_in_under_the_app_url() -> None:
    """The link is the sign-in page under the configured URL, with the address filled in."""
    message = invitation(member_entity(), "Acme", "https://app.example.com/")
    assert "https://app.example.com/login?email=Grace%40Example.com" in message.text


def test_the_login_link_encodes_the_address() -> None:
    """A plus sign in an address survives the query string."""
    assert (
        login_link("https://app.example.com", "a+b@example.com")
        == "https://app.example.com/login?email=a%2Bb%40example.com"
    )


def test_the_logging_mailer_logs_recipient_and_subject_only(caplog: pytest.LogCaptureFixture) -> None:
    """The embedded default writes who and what about, never the body."""
    with caplog.at_level(logging.INFO, logger="engage.mail"), pytest.raises(MailNotConfigured):
        LoggingMailer().send(MailMessage("ada@example.com", "Welcome", "secret-link-123"))
    assert "ada@example.com" in caplog.text and "Welcome" in caplog.text
    assert "secret-link-123" not in caplog.text


def test_the_logging_mailer_says_nothing_was_sent() -> None:
    """Without a mail server, sending raises an undelivered error that names the setting to set."""
    with pytest.raises(MailUndelivered, match="ENGAGE_SMTP_HOST"):
        LoggingMailer().send(MailMessage("ada@example.com", "Welcome", "Hello"))


def test_the_fake_hasher_verifies_what_it_hashed() -> None:
    """hash then verify with the same password is true."""
    hasher = FakePasswordHasher()
    assert hasher.verify(hasher.hash("correct horse"), "correct horse")


def test_the_fake_hasher_refuses_another_password() -> None:
    """A different password does not verify."""
    hasher = FakePasswordHasher()
    assert not hasher.verify(hasher.hash("correct horse"), "wrong horse")


def test_the_fake_hasher_salts_every_hash() -> None:
    """Hashing twice gives two hashes, neither containing the password."""
    hasher = FakePasswordHasher()
    first, second = hasher.hash("correct horse"), hasher.hash("correct horse")
    assert first != second and "correct horse" not in first


def test_the_fake_hasher_refuses_a_malformed_hash() -> None:
    """Anything not in its shape verifies as false, without an error."""
    assert not FakePasswordHasher().verify("plain-text", "plain-text")


def test_the_fake_mailer_records_and_can_fail() -> None:
    """Messages are recorded until fail(); then sending raises MailUndelivered."""
    mailer = FakeMailer()
    mailer.send(MailMessage("a@example.com", "One", "x"))
    mailer.fail("down")
    with pytest.raises(MailUndelivered, match="down"):
        mailer.send(MailMessage("a@example.com", "Two", "x"))
    assert [m.subject for m in mailer.sent] == ["One"]
