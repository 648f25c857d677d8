"""Signing in and out of the dashboard (`engage_core.team.sign_in` holds the rules).

`GET /login` shows the form (the invitation's link fills in the address); `POST /login` checks the
address and password with `TeamService.sign_in`, after `SignInGuard` has counted the attempt of the
client's IP address and checked that the address is not locked. One workspace: the session cookie is set and the
browser goes on to the page it asked for (only a path under `/app`). Several: the page asks which,
and remembers the answer's candidates for `CHOICE_TTL` in a sealed cookie, so the password is never
sent back to the browser. A locked address (`SignInGuard`) is answered 429 with the minutes left.

The sign-in form has no session yet, so its CSRF token is a random value in a short-lived cookie
that the form must repeat (a page on another site can read neither). `POST /logout` ends the
session in this browser; changing the password ends it in every browser.
"""

from __future__ import annotations

import hmac
import logging
import secrets
from datetime import timedelta

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from engage_core.kernel.errors import Forbidden, Unauthenticated
from engage_core.services import Services
from engage_core.team.sign_in import SignedIn, SignInGuard, TooManySignIns
from engage_http.dashboard.pages import APP_PREFIX, Viewers, form_text, redirect, render
from engage_http.dashboard.sessions import SESSION_COOKIE, MemberGrant, set_session_cookie
from engage_http.routing import in_worker_thread

log = logging.getLogger("engage.http")

LOGIN_CSRF_COOKIE = "engage_login_csrf"
CHOICE_COOKIE = "engage_sign_in_choice"
CHOICE_TTL = timedelta(minutes=5)
HOME = f"{APP_PREFIX}/inbox"


def routes(services: Services, viewers: Viewers, guard: SignInGuard) -> list[Route]:
    """`/login`, `/login/workspace` and `/logout`."""
    sessions = viewers.sessions

    async def login_form(request: Request) -> Response:
        if await viewers.of(request) is not None:
            return redirect(_next(request.query_params.get("next")))
        email = request.query_params.get("email", "")
        return _form(request, email=email, next_path=request.query_params.get("next", ""))

    async def login(request: Request) -> Response:
        form = await request.form()
        email, password = form_text(form, "email").strip(), form_text(form, "password")
        next_path = form_text(form, "next")
        if not _login_csrf_ok(request, form_text(form, "csrf")):
            return _form(request, 403, email=email, next_path=next_path, error="This form has expired. Try again.")
        if not email or not password:
            return _form(
                request, 422, email=email, next_path=next_path, error="Enter your e-mail address and password."
            )
        try:
            guard.check(email, request.client.host if request.client else None)
            opened = await in_worker_thread(services.team.sign_in, email, password)
        except TooManySignIns as exc:
            return _form(request, 429, {"Retry-After": str(exc.retry_after)}, email=email, error=exc.message)
        except Unauthenticated as exc:
            guard.failed(email)
            return _form(request, 401, email=email, next_path=next_path, error=exc.message)
        except Forbidden as exc:
            return _form(request, 403, email=email, next_path=next_path, error=exc.message)
        if len(opened) == 1:
            return _signed_in(request, opened[0], next_path)
        candidates = [{"a": o.account_id, "m": o.member.id, "s": o.stamp, "w": o.workspace} for o in opened]
        choice = sessions.seal_document({"c": candidates, "x": next_path}, CHOICE_TTL)
        response = render(
            "choose_workspace.html",
            viewer=None,
            workspaces=[(o.account_id, o.workspace) for o in opened],
            csrf=_login_csrf(request),
        )
        response.set_cookie(
            CHOICE_COOKIE, choice, max_age=int(CHOICE_TTL.total_seconds()), httponly=True, samesite="strict"
        )
        return response

    async def choose_workspace(request: Request) -> Response:
        form = await request.form()
        choice = sessions.unseal(request.cookies.get(CHOICE_COOKIE))
        if choice is None or not _login_csrf_ok(request, form_text(form, "csrf")):
            return _form(request, 403, error="This choice has expired. Sign in again.")
        wanted = form_text(form, "workspace")
        picked = next((c for c in choice["c"] if str(c["a"]) == wanted), None)
        if picked is None:
            return _form(request, 422, error="Choose one of your workspaces.")
        grant = MemberGrant(int(picked["a"]), int(picked["m"]), str(picked["s"]))
        response = _start(request, grant, str(choice.get("x", "")))
        response.delete_cookie(CHOICE_COOKIE)
        return response

    async def logout(request: Request) -> Response:
        viewer = await viewers.of(request)
        form = await request.form()
        if viewer is not None and not hmac.compare_digest(form_text(form, "csrf"), viewer.csrf):
            return redirect(HOME)  # a forged sign-out changes nothing
        response = redirect("/login")
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    def _signed_in(request: Request, signed: SignedIn, next_path: str) -> Response:
        log.info("Team member %s signed in to account %s", signed.member.id, signed.account_id)
        return _start(request, MemberGrant(signed.account_id, signed.member.id, signed.stamp), next_path)

    def _start(request: Request, grant: MemberGrant, next_path: str) -> Response:
        value, _ = sessions.seal_member(grant)
        response = redirect(_next(next_path))
        set_session_cookie(response, request, value, sessions.ttl)
        response.delete_cookie(LOGIN_CSRF_COOKIE, path="/login")
        return response

    return [
        Route("/login", login_form, methods=["GET"], name="login_form"),
        Route("/login", login, methods=["POST"], name="login"),
        Route("/login/workspace", choose_workspace, methods=["POST"], name="login_workspace"),
        Route("/logout", logout, methods=["POST"], name="logout"),
    ]


def _next(path: str | None) -> str:
    """Where to go after signing in: a page of the dashboard, never another site."""
    if path and path.startswith(f"{APP_PREFIX}/") and not path.startswith("//") and "\\" not in path:
        return path
    return HOME


def _login_csrf(request: Request) -> str:
    return request.cookies.get(LOGIN_CSRF_COOKIE) or secrets.token_urlsafe(24)


def _login_csrf_ok(request: Request, token: str) -> bool:
    expected = request.cookies.get(LOGIN_CSRF_COOKIE)
    return bool(expected) and bool(token) and hmac.compare_digest(token, expected or "")


def _form(
    request: Request,
    status: int = 200,
    headers: dict[str, str] | None = None,
    *,
    email: str = "",
    next_path: str = "",
    error: str | None = None,
) -> Response:
    csrf = _login_csrf(request)
    response = render(
        "login.html", status, headers, viewer=None, email=email, next_path=next_path, error=error, csrf=csrf
    )
    response.set_cookie(LOGIN_CSRF_COOKIE, csrf, max_age=3600, httponly=True, samesite="strict", path="/login")
    return response
