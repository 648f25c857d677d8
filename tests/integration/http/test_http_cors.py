"""Cross-origin requests (CORS): preflights, and the `Access-Control-*` headers of actual requests,
derived from the whitelist of the key's account (docs/api.md#cross-origin-requests-cors)."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence

import httpx
import pytest
from http_support import API, Api, PartnerCaller, Tenant
from starlette.convertors import UUIDConvertor
from starlette.routing import Route
from starlette.testclient import TestClient

from engage_core.kernel.rate_limits import InMemoryRateLimiter, RateLimitPolicy
from engage_core.messaging.channels import CHANNEL_TYPES
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.messaging.sandbox_controls import SandboxControls
from engage_core.services import Services
from engage_core.testing import FakeCipher, FakeClock, InMemoryUnitOfWorkFactory
from engage_http import create_app
from engage_http.areas import PARTNER_OPERATIONS
from engage_http.dashboard import SessionCookies
from engage_http.messaging.callbacks import CALLBACK_PATH
from engage_http.rate_limit import RequestRateLimiter
from engage_http.routing import MAX_BODY_SIZE, ChannelConvertor, IdConvertor, WebChatSessionConvertor

SHOP = "https://shop.example"
EVIL = "https://evil.example"
ALLOWED_HEADERS = {"x-api-key", "authorization", "content-type", "idempotency-key"}
RATE_LIMIT_HEADERS = {"x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after"}
PARTNER_PATHS = {API + op.path for op in PARTNER_OPERATIONS}
DOCS = API + "/docs"


def preflight(client: TestClient, url: str, method: str = "POST", origin: str = SHOP) -> httpx.Response:
    """The preflight a browser sends before a cross-origin `method` carrying a key and a JSON body."""
    headers = {
        "Origin": origin,
        "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": "x-api-key,content-type",
    }
    return client.options(url, headers=headers)


def listed(value: str | None) -> set[str]:
    """The comma-separated names of a header, lower-cased."""
    return {part.strip().lower() for part in (value or "").split(",") if part.strip()}


def cors_headers(response: httpx.Response) -> set[str]:
    return {name for name in response.headers if name.startswith("access-control-")}


@pytest.fixture
def shop_api(make_tenant: Callable[..., Tenant], client_for: Callable[[Tenant], Api]) -> Api:
    """A client of a tenant whose whitelist is `SHOP`."""
    return client_for(make_tenant(origins=[SHOP]))


# -- preflights ------------------------------------------------------------------------------------


def test_a_preflight_is_answered_with_the_allowed_methods_and_headers(client: TestClient) -> None:
    """A preflight of an API route is 204 echoing the Origin, with the path's methods, the key and
    body headers, a max-age and `Vary: Origin`."""
    response = preflight(client, API + "/contacts")

    assert response.status_code == 204
    assert response.headers["access-control-allow-origin"] == SHOP
    assert {"get", "post"} <= listed(response.headers["access-control-allow-methods"])
    assert listed(response.headers["access-control-allow-headers"]) >= ALLOWED_HEADERS
    assert int(response.headers["access-control-max-age"]) > 0
    assert "origin" in listed(response.headers["vary"])


def test_a_preflight_names_no_account(client: TestClient) -> None:
    """A preflight carries no key, so it is answered for an origin no account lists: the actual
    request enforces the whitelist."""
    response = preflight(client, API + "/contacts", origin=EVIL)

    assert response.status_code == 204
    assert response.headers["access-control-allow-origin"] == EVIL


def test_a_preflight_lists_only_the_methods_of_its_path(client: TestClient) -> None:
    """`Access-Control-Allow-Methods` names the path's own methods: a browser refuses any other."""
    response = preflight(client, API + "/contacts/1", method="PATCH")

    assert listed(response.headers["access-control-allow-methods"]) == {"get", "head", "put", "delete"}


def test_a_preflight_of_an_unknown_route_is_404(client: TestClient) -> None:
    """An unknown path answers a preflight as any other request: 404."""
    response = preflight(client, API + "/no-such-route")

    assert response.status_code == 404


def test_an_options_request_without_origin_lists_the_methods(client: TestClient) -> None:
    """A plain `OPTIONS` (no Origin) is 204 with `Allow` and no CORS headers."""
    response = client.options(API + "/contacts")

    assert response.status_code == 204
    assert listed(response.headers["allow"]) == {"get", "head", "post", "options"}
    assert cors_headers(response) == set()


def test_every_route_answers_a_preflight(
    services: Services, uow: InMemoryUnitOfWorkFactory, sandbox: SandboxGateway
) -> None:
    """Every API route (the document's too) answers a preflight with 204; workspace routes and the
    document allow the origin, partner routes (server-to-server only) do not."""
    app = create_app(services, sandbox=SandboxControls(uow, sandbox))
    client = TestClient(app)
    samples = {
        IdConvertor: 1,
        ChannelConvertor: CHANNEL_TYPES[0],
        UUIDConvertor: uuid.UUID(int=1),
        WebChatSessionConvertor: "wcs_x",
    }
    routes = [  # the API's routes; the operational ones (/health, /ready) are for load balancers, not browsers
        route
        for route in app.routes
        if isinstance(route, Route) and route.path.startswith(API + "/") and not route.path.startswith(DOCS)
    ]
    assert len(routes) > 50
    for route in routes:
        params = {name: samples.get(type(convertor), "x") for name, convertor in route.param_convertors.items()}
        url = route.url_path_for(route.name, **params)
        methods = sorted((route.methods or set()) - {"HEAD", "OPTIONS"})

        response = preflight(client, url, method=methods[0])

        assert response.status_code == 204, url
        if route.path in PARTNER_PATHS:
            assert cors_headers(response) == set(), url
        else:
            assert response.headers["access-control-allow-origin"] == SHOP, url
            assert {m.lower() for m in methods} <= listed(response.headers["access-control-allow-methods"]), url


def test_a_partner_route_gives_browsers_no_preflight(make_partner: Callable[..., PartnerCaller]) -> None:
    """A partner route's preflight allows no origin, so a browser never sends the partner key."""
    partner = make_partner()

    response = preflight(partner.api.client, API + "/partner/clients", method="GET")

    assert response.status_code == 204
    assert cors_headers(response) == set()


# -- routes outside the operation table -----------------------------------------------------------


class NoCallbacks:
    """A provider callback reader that acts on nothing (the route's `OPTIONS` never reads a callback)."""

    def read(self, headers: Sequence[tuple[str, str]], body: bytes) -> None:
        return None


def test_the_document_answers_options_with_its_methods(client: TestClient) -> None:
    """A plain `OPTIONS` on `/openapi.json` is 204 with `Allow`, as on an API route."""
    response = client.options(API + "/openapi.json")

    assert response.status_code == 204
    assert listed(response.headers["allow"]) == {"get", "head", "options"}
    assert cors_headers(response) == set()


def test_any_origin_may_read_the_document(client: TestClient) -> None:
    """The document is public and keyless: a page of any origin may fetch it (renderers, generators)."""
    response = client.get(API + "/openapi.json", headers={"Origin": EVIL})

    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == EVIL
    assert "origin" in listed(response.headers["vary"])


@pytest.mark.parametrize("path", ["/impersonate/some-token", "/dashboard/acme"])
def test_the_dashboard_routes_answer_options_without_cors(services: Services, clock: FakeClock, path: str) -> None:
    """The dashboard's pages answer `OPTIONS` 204 with `Allow`, granting no origin anything."""
    client = TestClient(create_app(services, sessions=SessionCookies(FakeCipher(), clock)))

    response = preflight(client, path, method="GET")

    assert response.status_code == 204
    assert listed(response.headers["allow"]) == {"get", "head", "options"}
    assert cors_headers(response) == set()


def test_the_provider_callback_route_answers_options_without_cors(services: Services) -> None:
    """The provider's callback route (server-to-server) answers `OPTIONS` 204 with `Allow` only."""
    client = TestClient(create_app(services, provider_callbacks=NoCallbacks()))

    response = preflight(client, API + CALLBACK_PATH)

    assert response.status_code == 204
    assert listed(response.headers["allow"]) == {"post", "options"}
    assert cors_headers(response) == set()


# -- actual requests -------------------------------------------------------------------------------


def test_a_whitelisted_origin_gets_the_cors_headers(shop_api: Api) -> None:
    """An Origin the account lists is echoed, with `Vary: Origin` and the exposed headers."""
    response = shop_api.get("/contacts", headers={"Origin": SHOP})

    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == SHOP
    assert "origin" in listed(response.headers["vary"])
    assert listed(response.headers["access-control-expose-headers"]) >= RATE_LIMIT_HEADERS


def test_an_open_whitelist_echoes_any_origin(api: Api) -> None:
    """An account with no whitelist allows every origin: each is echoed."""
    response = api.get("/contacts", headers={"Origin": EVIL})

    assert response.headers["access-control-allow-origin"] == EVIL


def test_an_unlisted_origin_gets_no_cors_headers(shop_api: Api) -> None:
    """The 403 of an Origin the account does not list carries no CORS headers: the browser hides it."""
    response = shop_api.get("/contacts", headers={"Origin": EVIL})

    assert response.status_code == 403
    assert cors_headers(response) == set()


def test_a_request_without_origin_gets_no_cors_headers(shop_api: Api) -> None:
    """Server-to-server calls (no Origin) get no CORS headers and no `Vary`."""
    response = shop_api.get("/contacts")

    assert response.status_code == 200
    assert cors_headers(response) == set()
    assert "vary" not in response.headers


def test_a_write_from_a_whitelisted_origin_gets_the_cors_headers(shop_api: Api) -> None:
    """A created resource's answer carries the headers too."""
    response = shop_api.post("/contacts", json={"name": "Ann", "type": "instagram"}, headers={"Origin": SHOP})

    assert response.status_code == 201
    assert response.headers["access-control-allow-origin"] == SHOP


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status"),
    [
        ("GET", "/contacts/999", {}, 404),
        ("POST", "/contacts", {"json": {"name": ""}}, 422),
        ("POST", "/contacts", {"content": b"x" * (MAX_BODY_SIZE + 1)}, 413),
    ],
)
def test_errors_of_a_whitelisted_origin_carry_the_headers(
    shop_api: Api, method: str, path: str, kwargs: dict[str, object], status: int
) -> None:
    """An error answer to a whitelisted origin carries the CORS headers, so the browser can read it."""
    response = shop_api.request(method, path, headers={"Origin": SHOP}, **kwargs)

    assert response.status_code == status
    assert response.headers["access-control-allow-origin"] == SHOP


def test_an_inactive_accounts_403_reaches_its_whitelisted_origin(
    make_tenant: Callable[..., Tenant], client_for: Callable[[Tenant], Api]
) -> None:
    """The 403 `account_inactive` to a whitelisted origin carries the headers."""
    api = client_for(make_tenant(active=False, origins=[SHOP]))

    response = api.get("/contacts", headers={"Origin": SHOP})

    assert response.json()["code"] == "account_inactive"
    assert response.headers["access-control-allow-origin"] == SHOP


def test_a_401_carries_the_headers(anonymous: Api, wrong_key: str) -> None:
    """A refused key names no account and its body is the same for every caller: the browser may read it."""
    response = anonymous.get("/contacts", headers={"X-Api-Key": wrong_key, "Origin": SHOP})

    assert response.status_code == 401
    assert response.headers["access-control-allow-origin"] == SHOP
    assert "www-authenticate" in listed(response.headers["access-control-expose-headers"])


def test_a_429_carries_the_headers(services: Services, clock: FakeClock, make_tenant: Callable[..., Tenant]) -> None:
    """Past the rate limit, the 429 to a whitelisted origin carries the headers and exposes `Retry-After`."""
    limiter = RequestRateLimiter(InMemoryRateLimiter(), RateLimitPolicy(1, 60), clock)
    api = Api(TestClient(create_app(services, rate_limiter=limiter)), make_tenant(origins=[SHOP]).headers)
    api.get("/contacts", headers={"Origin": SHOP})

    response = api.get("/contacts", headers={"Origin": SHOP})

    assert response.status_code == 429
    assert response.headers["access-control-allow-origin"] == SHOP
    assert "retry-after" in listed(response.headers["access-control-expose-headers"])


def test_partner_responses_carry_no_cors_headers(make_partner: Callable[..., PartnerCaller]) -> None:
    """The partner API is for servers: an Origin gets no CORS headers there."""
    partner = make_partner()

    response = partner.api.get("/partner/profile", headers={"Origin": SHOP})

    assert response.status_code == 200
    assert cors_headers(response) == set()


def test_an_inactive_accounts_403_stays_hidden_from_an_unlisted_origin(
    make_tenant: Callable[..., Tenant], client_for: Callable[[Tenant], Api]
) -> None:
    """An origin the account does not list gets its refusal, without headers, even from an inactive account."""
    api = client_for(make_tenant(active=False, origins=[SHOP]))

    response = api.get("/contacts", headers={"Origin": EVIL})

    assert response.json()["code"] == "origin_not_allowed"
    assert cors_headers(response) == set()
