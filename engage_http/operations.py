"""The declarative route table's vocabulary: an `Operation` per method and path.

One table drives both the Starlette routes (`routing.py`) and the OpenAPI document (`openapi.py`),
so a route cannot exist undocumented, nor a documented route unserved. A route module declares

    Operation("GET", "/contacts/{id:id}", show, summary="Get a contact", tag="Contacts",
              response=Contact)

and its handler is a plain synchronous function of a `Call`: it calls one service and returns the
response object(s), a `Page` of them, `None` (204) or a `Reply` (data with a computed message).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable, Mapping
from types import UnionType
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import attrs

from engage_core.kernel.pagination import Page, PageLimits, PageRequest
from engage_core.plans.model import Plan
from engage_core.services import Services

if TYPE_CHECKING:
    from engage_http.form_stream import StreamedForm

B = TypeVar("B")
Q = TypeVar("Q")

PATH_PARAM = re.compile(r"{([a-z_]+)(?::([a-z_]+))?}")


class Shape(enum.Enum):
    """What `data` holds."""

    ONE = "one"
    MANY = "many"
    PAGE = "page"
    NOTHING = "nothing"
    ONE_WITH_PAGE = "one_with_page"
    """One object holding one page of a list (the handler returns a `WithPage`); `meta` describes the page."""


class Dialect(enum.Enum):
    """How an operation's bodies look."""

    ENGAGE = "engage"
    """The API's own: the envelope (`envelope.py`), its errors (SPEC 7)."""
    OPENAI = "openai"
    """OpenAI's (the OpenAI-compatible operations): `data` is the whole body, with no envelope, and
    errors are in OpenAI's format (`openai_format.py`), a validation failure being a 400. Such an
    operation takes no `Idempotency-Key`."""


class AuthScheme(enum.Enum):
    """Which key a secured operation takes (SPEC 5): they are never interchangeable."""

    WORKSPACE = "workspace"
    """The account API key, in `X-Api-Key` or `Authorization: Bearer`; the call acts for `account_id`."""
    PARTNER = "partner"
    """The partner key, in `X-Partner-Key` only; the call acts for `partner_id` (`account_id` is 0)."""


@attrs.frozen
class Call(Generic[B, Q]):
    """Everything a handler may use: the services, the caller's account, and the parsed request."""

    services: Services
    account_id: int
    path: Mapping[str, int]
    body: B
    query: Q
    page: PageRequest | None
    partner_id: int = 0
    """The calling partner, for `AuthScheme.PARTNER` operations (0 otherwise)."""
    plan: Plan | None = None
    """The workspace's plan in force, read with its key (workspace operations): the services that
    check a limit or a feature take it rather than reading it again."""
    form: StreamedForm | None = None
    """The body of a `streamed` operation, read part by part as it arrives (None otherwise)."""


@attrs.frozen
class WithPage:
    """What a `Shape.ONE_WITH_PAGE` handler returns: the object, and the page inside it `meta` describes."""

    data: Any
    page: Page[Any]


@attrs.frozen
class Reply:
    """Data with a message decided by the handler (instead of the operation's fixed one), and
    optionally one of the operation's `alternate_statuses` instead of its `status`."""

    data: Any
    message: str | None = None
    status: int | None = None
    success: bool = True
    """False for an operation that `reports_failure`: the data records something that did not happen."""


Handler = Callable[[Call[Any, Any]], Any]


@attrs.frozen
class Operation:
    """One method on one path, relative to `/api/v1`. Path parameters use the `id` convertor."""

    method: str
    path: str
    handler: Handler
    summary: str
    tag: str
    response: type | UnionType | None = None
    """The class of the data rendered; a union of classes where the shape depends on the resource
    (each rendered as its own class; the document says `anyOf`)."""
    shape: Shape = Shape.ONE
    status: int = 200
    message: str | None = None
    body: type | None = None
    query: type | None = None
    page: PageLimits | None = None
    errors: frozenset[int] = frozenset()
    """Statuses beyond those derived from the operation (401/403 when secured, 404 with path
    parameters, 422 with a body or query, 413 with a body, 500 and 503 always)."""
    secured: bool = True
    description: str | None = None
    alternate_statuses: frozenset[int] = frozenset()
    """Success statuses other than `status`, answered with the same body (a handler picks one with
    `Reply(status=...)`)."""
    multipart: bool = False
    """The body may also be sent as `multipart/form-data` (see `engage_http.multipart`)."""
    form_only: bool = False
    """The body is `multipart/form-data` only (it carries file uploads, `engage_http.uploads`): any
    other body is a 422. Implies `multipart`."""
    streamed: bool = False
    """The handler reads the `multipart/form-data` body as it arrives (`Call.form`,
    `engage_http.form_stream`) instead of getting it parsed: for uploads too large to hold in memory.
    `body` then only documents the form. Implies `form_only`; never on the write lane, and without
    `Idempotency-Key` (the body cannot be kept to compare a retry with)."""
    body_optional: bool = False
    """An empty request body stands for `{}`."""
    body_limit: int | None = None
    """The largest request body in bytes; None is `routing.MAX_BODY_SIZE`."""
    reports_failure: bool = False
    """A handler may answer `success` false with data (`Reply(success=False)`): a record of something
    that did not happen, such as a message stored `failed` (SPEC 7, non-error outcomes)."""
    write_lane: bool = False
    """The handler has no effect but its units of work (no message sent, no mail, no outbound
    request, no work after its last commit) and is short: where the storage has a write lane
    (SQLite), it runs there, its commit made durable together with other requests' and answered
    after that (`engage_sql.write_lane`; an outbound port called there raises). Declared in the
    area's route module (`declare`)."""
    auth: AuthScheme = AuthScheme.WORKSPACE
    """The key a secured operation takes (`secured=False`: none)."""
    feature: str | None = None
    """The plan feature the operation belongs to (`engage_core.plans.FEATURES`); without it the
    workspace gets 403 `feature_not_in_plan`, unless `allowed_without_feature`. Declared in the
    area's route module (`declare`)."""
    dialect: Dialect = Dialect.ENGAGE
    """The API's own bodies, or OpenAI's (`Dialect`)."""
    allowed_without_feature: bool = False
    """The operation stays allowed while the plan lacks `feature`: a workspace moved to a plan
    without it can still read and delete what it made with it (`declare` sets it on GET, HEAD and
    DELETE). Creates, updates and actions that use the feature are refused."""

    @property
    def operation_id(self) -> str:
        return f"{self.tag.lower().replace(' ', '_')}_{self.handler.__name__}"

    @property
    def path_params(self) -> tuple[str, ...]:
        return tuple(name for name, _ in PATH_PARAM.findall(self.path))

    @property
    def openapi_path(self) -> str:
        return PATH_PARAM.sub(lambda m: "{" + m.group(1) + "}", self.path)

    @property
    def statuses(self) -> tuple[int, ...]:
        """Every status this operation can answer with, in order."""
        found = {self.status, 500, 503, *self.errors, *self.alternate_statuses}
        if self.secured:
            found |= {401, 403, 429}
        if self.path_params:
            found.add(404)
        if self.body is not None or self.query is not None or self.page is not None:
            found.add(400 if self.dialect is Dialect.OPENAI else 422)
        if self.body is not None:
            found.add(413)
        if self.idempotent:  # another request with the key (422), or the same one still running (409)
            found |= {409, 422}
        return tuple(sorted(found))

    @property
    def idempotent(self) -> bool:
        """Whether the operation honours `Idempotency-Key` (`engage_http.idempotency`): every POST
        of a caller, but OpenAI's (`Dialect.OPENAI`), nor a streamed upload's."""
        return self.method == "POST" and self.secured and self.dialect is Dialect.ENGAGE and not self.streamed


READ_METHODS = frozenset({"GET", "HEAD"})
KEPT_WITHOUT_FEATURE = READ_METHODS | {"DELETE"}
"""What a workspace may still do with a feature's resources once its plan lacks the feature."""


def declare(*operations: Operation, feature: str | None = None, write_lane: bool = False) -> tuple[Operation, ...]:
    """The operations of one route module, with what they share: the plan `feature` every one of
    them belongs to (an operation's own wins; its reads and deletes stay allowed without it,
    `Operation.allowed_without_feature`), and whether its writes (not its reads) have no effect but
    their units of work (`Operation.write_lane`; an operation may also set it alone)."""
    return tuple(
        attrs.evolve(
            op,
            feature=op.feature if op.feature is not None else feature,
            allowed_without_feature=op.allowed_without_feature or op.method in KEPT_WITHOUT_FEATURE,
            write_lane=op.write_lane or (write_lane and op.method not in READ_METHODS),
        )
        for op in operations
    )
