"""What the dashboard's HTTP tests share: the members' password, the form token, signing in."""

from __future__ import annotations

import re

import httpx
from starlette.testclient import TestClient

PASSWORD = "correct horse battery"
PHONE = "+14155550123"
"""The customer of the `conversation` fixture."""


def csrf_of(page: httpx.Response) -> str:
    """The CSRF token of the first form of a page."""
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found is not None, page.text
    return found.group(1)


def sign_in(browser: TestClient, email: str = "ada@example.com", password: str = PASSWORD) -> httpx.Response:
    """Sign in through the form, as a browser does."""
    form = browser.get("/login")
    return browser.post("/login", data={"email": email, "password": password, "csrf": csrf_of(form), "next": ""})
