"""Starlette routes built from the operation table.

One `Route` per path (so a 405 lists every method of the path in `Allow`), dispatching on the method
to a `BoundOperation`. A request costs one worker-thread hop: the body is read on the event loop, then
authentication, parsing, the service call and serialisation run together in a worker thread (the
core and its storage are synchronous). Everything per-operation that can be prepared (the query
parser, the unstructure function) is prepared once, when the app is built.

The worker threads are plain `ThreadPoolExecutor`s (`in_worker_thread`) rather than Starlette's
`run_in_threadpool`: anyio's capacity limiter, cancel scopes and checkpoints around each call cost
about twice the hop itself when many requests are in flight. Reads (`GET`, `HEAD`) get a pool of
their own, of few threads: a read keeps its thread busy in Python the whole time, so more threads
than that only queue for the GIL, and on a busy machine the futex hand-offs of dozens of runnable
threads cost more CPU than the requests themselves. Writes keep the large pool: they spend most of
their time waiting (for SQLite's write turn, for a group commit), and the more of them wait together,
the more share one fsync.

Short reads run with no hop at all where the storage says a read is always short (`short_reads`,
given by the composition root: the first pages of `GET /contacts` without filters). The storage
names them by the core filter type the read takes; an operation whose query structures into that
type asks it, request by request. A hop costs more than such a read, mostly in GIL hand-offs. On
SQLite in WAL mode, where a read takes no lock a writer holds and waits for no fsync, the handler
runs on the loop as it is; where the storage's reads wait for the network, it runs through the
storage's `loop_reads` runner, which lets the loop serve other requests while it waits.

Where the storage has a write lane (`WriteLane`), the operations that declare `write_lane` run
there instead of in a worker thread each. SQLite's (`engage_sql.write_lane`) is one thread that
handles the writes of many requests, authentication included, in one transaction, and answers them
together once it is durable: two threads (the event loop and the lane) then share the GIL, not
dozens. PostgreSQL's (`engage_sql.loop_calls`) runs each on the event loop like a short read, in
transactions of its own.

A POST with an `Idempotency-Key` header takes neither shortcut: it runs in a worker thread, where
its key is claimed and its response kept in transactions of their own around the handler's
(`idempotency.py`). Looking for the header is all it costs a POST without one.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable, Hashable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, TypeVar

from starlette.convertors import Convertor, register_url_convertor
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from engage_core.accounts.model import Admission
from engage_core.kernel.errors import EngageError, ValidationFailed
from engage_core.kernel.pagination import Page, PageRequest
from engage_core.messaging.channels import CHANNEL_TYPES
from engage_core.plans.model import Plan
from engage_core.services import Services
from engage_http import auth, cors, envelope, idempotency, multipart, openai_format, pagination, partner_auth
from engage_http.converter import BODY, core_type, load_json, structure, to_core, unstructure_hook
from engage_http.envelope_schemas import PageMeta
from engage_http.errors import (
    StorageErrors,
    engage_error_response,
    handle_http_exception,
    log_storage_error,
    log_unexpected,
    server_error_response,
)
from engage_http.fields import ID_DIGITS
from engage_http.form_stream import BodyStream, StreamedForm
from engage_http.idempotency import IdempotentRequests
from engage_http.operations import AuthScheme, Call, Dialect, Operation, Reply, Shape, WithPage
from engage_http.query import QueryParser
from engage_http.rate_limit import RequestRateLimiter, limited, partner_bucket, workspace_bucket

API_PREFIX = "/api/v1"

API_ACCESS = "api_access"
"""The plan feature every workspace request needs (SPEC 2 Plan)."""

MAX_BODY_SIZE = 1024 * 1024
"""Request bodies above 1 MiB are refused with 413 (the JSON API has no use for more); an operation
that takes uploads declares its own `body_limit`."""

QUERY_CACHE_SIZE = 1024
"""Distinct query strings whose parsed form an operation keeps (all dropped when it is full)."""

THREADPOOL_SIZE = 40
"""Write requests handled at once per process: the default of Starlette's own threadpool (anyio's),
and the size of the SQL connection pool (`engage_sql.engines.THREADPOOL_SIZE`)."""

READ_THREADS = 8
"""Read requests (`GET`, `HEAD`) handled at once per process; more wait in line for a thread."""

UPLOAD_THREADS = 8
"""Streamed uploads handled at once per process; more wait in line for a thread. A pool of their own:
an upload holds its thread as long as its client takes to send it, and slow uploads must not take
every thread the other writes need."""

_writers = ThreadPoolExecutor(max_workers=THREADPOOL_SIZE, thread_name_prefix="engage-request")
_readers = ThreadPoolExecutor(max_workers=READ_THREADS, thread_name_prefix="engage-read")
_uploads = ThreadPoolExecutor(max_workers=UPLOAD_THREADS, thread_name_prefix="engage-upload")
READ_METHODS = frozenset({"GET", "HEAD"})

R = TypeVar("R")


async def in_worker_thread(fn: Callable[..., R], *args: Any, read: bool = False, upload: bool = False) -> R:
    """`fn(*args)` in a worker thread (of the readers' pool when `read`, of the uploads' when
    `upload`), with the caller's context variables (as Starlette does)."""
    context = contextvars.copy_context()
    executor = _uploads if upload else _readers if read else _writers
    return await asyncio.get_running_loop().run_in_executor(executor, context.run, fn, *args)


ShortRead = Callable[[Any, PageRequest | None], bool]
"""Given a read's filters (a core filter value) and page, whether the read is always short."""


class WriteLane(Protocol):
    """Runs write handlers one after another on a thread of its own, answering each once its
    writes are durable, taking the callers' keys in turn (`engage_sql.write_lane.WriteLane`)."""

    def admits(self, key: Hashable, size: int) -> bool:
        """Whether a handler of `key` with a body of `size` bytes may run on the lane (else it runs
        in a worker thread, in its own transaction)."""

    async def run(self, fn: Callable[[], R], *, key: Hashable = None) -> R: ...


class LoopReads(Protocol):
    """Runs a short read's handler on the event loop where the storage's reads wait for the
    network: its waits let the loop run (`engage_sql.loop_calls.LoopCalls`)."""

    async def run(self, fn: Callable[..., R], *args: Any) -> R: ...


_CREDENTIALS = (auth.API_KEY_HEADER.encode(), b"authorization", partner_auth.PARTNER_KEY_HEADER.encode())


def lane_key(scope: Scope) -> bytes:
    """Whose turn a write takes on the lane: its credential, one per workspace, read before the
    request is authenticated (that happens on the lane); b"" without one."""
    for name, value in scope["headers"]:
        if name in _CREDENTIALS:
            return bytes(value)
    return b""


class IdConvertor(Convertor[int]):
    """A resource id in a path: 1 to 18 digits, so it always fits a signed 64-bit column.

    Longer or non-numeric segments do not match the route at all (404), and `/contacts/lists`
    can never be taken for `/contacts/{id}`.
    """

    regex = f"[0-9]{{1,{ID_DIGITS}}}"

    def convert(self, value: str) -> int:
        return int(value)

    def to_string(self, value: int) -> str:
        return str(value)


register_url_convertor("id", IdConvertor())


class ChannelConvertor(Convertor[str]):
    """A channel type in a path (`{channel:channel}`): anything else does not match the route (404)."""

    regex = "|".join(CHANNEL_TYPES)

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("channel", ChannelConvertor())


class WebChatSessionConvertor(Convertor[str]):
    """A web chat session's public id in a path (`wcs_` and up to 60 URL-safe characters)."""

    regex = "wcs_[A-Za-z0-9_-]{1,60}"

    def convert(self, value: str) -> str:
        return value

    def to_string(self, value: str) -> str:
        return value


register_url_convertor("web_chat_session", WebChatSessionConvertor())


Headers = Mapping[str, str]
"""A request's headers by lower-case name (`plain_headers`)."""


def plain_headers(request: Request) -> dict[str, str]:
    """The request's headers as a plain dict, the first of a repeated name winning as in
    Starlette's `Headers.get`. Built in one pass: each `Headers.get` scans them all, and raises and
    catches a KeyError for a header not sent (`Origin` and `Referer`, on most API requests)."""
    return {name.decode("latin-1"): value.decode("latin-1") for name, value in reversed(request.scope["headers"])}


class BoundOperation:
    """An operation wired to the services, with its parsers and renderer prepared."""

    def __init__(
        self,
        operation: Operation,
        services: Services,
        *,
        short_reads: Mapping[type, ShortRead] | None = None,
        loop_reads: LoopReads | None = None,
        rate_limiter: RequestRateLimiter | None = None,
        write_lane: WriteLane | None = None,
    ) -> None:
        self.operation = operation
        self.services = services
        self.rate_limiter = rate_limiter
        self.openai = operation.dialect is Dialect.OPENAI
        self.errors = openai_format.engage_error_response if self.openai else engage_error_response
        query_type = core_type(operation.query)
        self.inline = None if short_reads is None or query_type is None else short_reads.get(query_type)
        self.loop_reads = loop_reads
        self.lane = write_lane if operation.write_lane else None
        self.streams = operation.streamed
        self.reads_body = operation.body is not None and not operation.streamed
        self.body_limit = operation.body_limit or MAX_BODY_SIZE
        self.query: QueryParser[Any] | None = None if operation.query is None else QueryParser(operation.query)
        self.render_item: Callable[[Any], Any] | None = (
            None if operation.response is None else unstructure_hook(operation.response)
        )
        self._parsed: dict[bytes, tuple[Any, PageRequest | None]] = {}

    def respond(self, request: Request, raw_body: bytes, stream: BodyStream | None = None) -> Response:
        """Authenticate, parse, call the handler and render. Runs in a worker thread (or on the write
        lane's, or on the event loop for an inline read). Domain errors raised before the rate limit
        is counted (authentication) propagate; those after are rendered in the operation's dialect.
        A streamed operation's body is `stream`, read by its handler, after authentication."""
        headers = plain_headers(request)
        admission, partner_id = self._authenticate(headers)
        if not self.operation.secured:
            return self._handle(request, headers, raw_body, admission, partner_id, stream)
        bucket = partner_bucket(partner_id) if admission is None else workspace_bucket(admission.account.id)
        return limited(
            self.rate_limiter,
            bucket,
            lambda: self._handle(request, headers, raw_body, admission, partner_id, stream),
            self.errors,
        )

    def respond_once(self, request: Request, raw_body: bytes, key: str, requests: IdempotentRequests) -> Response:
        """`respond`, run once per idempotency `key` of the caller (`idempotency.py`). Runs in a worker
        thread. The key is claimed once the request is authenticated, admitted and parsed: a request
        refused before its handler runs keeps nothing on its key."""
        headers = plain_headers(request)
        admission, partner_id = self._authenticate(headers)
        if admission is None:
            scope, bucket = f"partner:{partner_id}", partner_bucket(partner_id)
        else:
            scope, bucket = f"account:{admission.account.id}", workspace_bucket(admission.account.id)

        def handle() -> Response:
            idempotency.check_key(key)
            call = self._call(request, headers, raw_body, admission, partner_id)
            request_print = idempotency.fingerprint(
                request.method, request.scope["path"], request.scope.get("query_string", b""), raw_body
            )
            return requests.respond(scope, key, request_print, lambda: self._render(self.operation.handler(call)))

        return limited(self.rate_limiter, bucket, handle)

    def _handle(
        self,
        request: Request,
        headers: Headers,
        raw_body: bytes,
        admission: Admission | None,
        partner_id: int,
        stream: BodyStream | None = None,
    ) -> Response:
        """Admit the workspace, parse, call the handler and render."""
        call = self._call(request, headers, raw_body, admission, partner_id, stream)
        return self._render(self.operation.handler(call))

    def _call(
        self,
        request: Request,
        headers: Headers,
        raw_body: bytes,
        admission: Admission | None,
        partner_id: int,
        stream: BodyStream | None = None,
    ) -> Call[Any, Any]:
        """Admit the workspace and parse the request."""
        account_id = 0
        plan = None
        if admission is not None:
            plan = self._admit(admission)
            account_id = admission.account.id
        form = None
        if self.streams:
            form = self._streamed_form(headers, stream)
            body = None
        else:
            body = to_core(self._parse_body(headers, raw_body))
        query, page = self._parse_query(request)
        return Call(
            services=self.services,
            account_id=account_id,
            path=request.path_params,
            body=body,
            query=query,
            page=page,
            partner_id=partner_id,
            plan=plan,
            form=form,
        )

    @staticmethod
    def _streamed_form(headers: Headers, stream: BodyStream | None) -> StreamedForm:
        """The body of a streamed operation, which must be a form."""
        content_type = headers.get("content-type")
        if not multipart.is_form(content_type):
            raise ValidationFailed.on(BODY, "Send the request as multipart/form-data.")
        assert content_type is not None and stream is not None
        return StreamedForm(content_type, stream)

    def _admit(self, admission: Admission) -> Plan:
        """The plan to run on; refuses a suspended workspace, and a plan without API access or
        without the operation's feature, unless the operation stays allowed without it (each a
        403 with its `code`)."""
        plan = admission.plan_to_run_on()
        plan.require(API_ACCESS)
        op = self.operation
        if op.feature is not None and not op.allowed_without_feature:
            plan.require(op.feature)
        return plan

    def _authenticate(self, headers: Headers) -> tuple[Admission | None, int]:
        """The workspace's admission (its account, suspension and plan, read together) or the
        partner id (0), for the scheme the operation uses; (None, 0) when unsecured."""
        op = self.operation
        if not op.secured:
            return None, 0
        if op.auth is AuthScheme.PARTNER:
            return None, partner_auth.authenticate(self.services.partners, headers).id
        key = auth.api_key(headers)
        partner_auth.refuse_partner_key(headers, key)
        return auth.admit(self.services.accounts, headers, key), 0

    def _parse_body(self, headers: Headers, raw: bytes) -> Any:
        """The body object: from JSON, or from a form when the operation takes `multipart/form-data`."""
        op = self.operation
        if op.body is None:
            return None
        content_type = headers.get("content-type")
        if (op.multipart or op.form_only) and multipart.is_form(content_type):
            assert content_type is not None
            return structure(multipart.form_values(content_type, raw, op.body), op.body)
        if op.form_only:
            raise ValidationFailed.on(BODY, "Send the request as multipart/form-data.")
        if op.body_optional and not raw.strip():
            return structure({}, op.body)
        return structure(load_json(raw), op.body)

    def runs_inline(self, request: Request) -> bool:
        """Whether this request may run on the event loop (see the module docstring)."""
        if self.inline is None:
            return False
        query, page = self._parse_query(request)
        return self.inline(query, page)

    def _parse_query(self, request: Request) -> tuple[Any, PageRequest | None]:
        """The query object and page request, parsed once per distinct query string: both are frozen,
        and clients repeat the same few (`?page=2&per_page=50`) over and over. Failures are not kept."""
        if self.query is None and self.operation.page is None:
            return None, None
        raw: bytes = request.scope.get("query_string", b"")
        parsed = self._parsed.get(raw)
        if parsed is None:
            parsed = self._parse_query_string(request)
            if len(self._parsed) >= QUERY_CACHE_SIZE:
                self._parsed.clear()
            self._parsed[raw] = parsed
        return parsed

    def _parse_query_string(self, request: Request) -> tuple[Any, PageRequest | None]:
        errors: dict[str, list[str]] = {}
        query = page = None
        if self.query is not None:
            try:
                query = to_core(self.query.parse(request.query_params))
            except ValidationFailed as exc:
                errors.update(exc.errors)
        if self.operation.page is not None:
            try:
                page = pagination.page_request(request.query_params, self.operation.page)
            except ValidationFailed as exc:
                errors.update(exc.errors)
        if errors:
            raise ValidationFailed(errors)
        return query, page

    def _render(self, result: Any) -> Response:
        op = self.operation
        if op.shape is Shape.NOTHING:
            return envelope.no_content()
        message, status, success = op.message, op.status, True
        if isinstance(result, Reply):
            assert result.success or op.reports_failure, f"{op.method} {op.path} does not report failures"
            message, success = result.message or message, result.success
            if result.status is not None:
                assert result.status in op.alternate_statuses, f"{op.method} {op.path} declares no {result.status}"
                status = result.status
            result = result.data
        render = self.render_item
        assert render is not None, f"{op.method} {op.path} declares no response class"
        if self.openai:  # the data is the whole body
            assert op.shape is Shape.ONE, f"{op.method} {op.path}: OpenAI's bodies are single objects"
            return Response(envelope.dumps(render(result)), status_code=status, media_type=envelope.JSON)
        if op.shape is Shape.ONE:
            return envelope.success(render(result), status=status, message=message, success=success)
        if op.shape is Shape.ONE_WITH_PAGE:
            assert isinstance(result, WithPage)
            return envelope.success(render(result.data), status=status, message=message, meta=PageMeta.of(result.page))
        if op.shape is Shape.MANY:
            return envelope.success([render(item) for item in result], status=status, message=message)
        assert isinstance(result, Page)
        return envelope.success(
            [render(item) for item in result.items], status=status, message=message, meta=PageMeta.of(result)
        )


async def read_body(request: Request, limit: int = MAX_BODY_SIZE) -> bytes:
    """The request body, refused with 413 as soon as it is known to exceed `limit` bytes.

    Read from the ASGI messages directly, as `Request.stream` reads them, without its async
    generator: most bodies come in one message, and every write request reads one."""
    refuse_declared_excess(request, limit)
    chunks: list[bytes] = []
    size = 0
    receive = request.receive
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            raise ClientDisconnect()
        chunk: bytes = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise HTTPException(413)
        chunks.append(chunk)
        if not message.get("more_body", False):
            return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def refuse_declared_excess(request: Request, limit: int) -> None:
    """413 at once when the request's `Content-Length` already exceeds `limit` bytes."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise HTTPException(413)


class _Dispatcher:
    """The ASGI app of one path: dispatches on the method to its `BoundOperation`, and answers
    `OPTIONS` and cross-origin requests (`cors.py`).

    An ASGI app rather than a request function, which Starlette would wrap (`request_response`) in a
    second exception-handling layer of its own: the app's (`ExceptionMiddleware`) turns the domain
    errors and HTTP exceptions raised here into the same responses, without the extra layer and its
    wrapper around every `send` of every request. A cross-origin request's errors are turned into
    responses here instead, to carry the CORS headers."""

    def __init__(
        self,
        bound: Mapping[str, BoundOperation],
        *,
        debug: bool,
        storage_errors: StorageErrors | None = None,
        idempotency: IdempotentRequests | None = None,
    ) -> None:
        self._bound = bound
        self._debug = debug
        self._storage_errors = storage_errors
        methods = list(bound)
        if "GET" in methods and "HEAD" not in methods:  # Starlette serves HEAD with GET
            methods.insert(methods.index("GET") + 1, "HEAD")
        self._methods = tuple(methods)
        # Browsers may call workspace routes; partner routes are server-to-server (`cors.py`).
        self._cross_origin = all(b.operation.auth is AuthScheme.WORKSPACE for b in bound.values())
        # Only a path with an idempotent operation (its POST) looks for the header.
        post = bound.get("POST")
        self._idempotency = idempotency if post is not None and post.operation.idempotent else None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive, send)
        origin = cors.request_origin(scope) if self._cross_origin else None
        if origin is None:
            response = await self._respond(request)
        else:
            response = await self._respond_cross_origin(request, origin)
        await response(scope, receive, send)

    async def _respond_cross_origin(self, request: Request, origin: str) -> Response:
        """The answer with the CORS headers of `origin`, errors included, unless the account refuses
        the origin (that 403 goes out without them, and the browser hides it)."""
        if request.method == "OPTIONS":
            return cors.options(self._methods, origin)
        try:
            response = await self._respond(request)
        except EngageError as exc:
            if cors.refuses(exc):
                raise
            response = engage_error_response(exc)
        except HTTPException as exc:
            response = await handle_http_exception(request, exc)
        return cors.allow(response, origin)

    async def _respond(self, request: Request) -> Response:
        method = request.method
        target = self._bound.get("GET" if method == "HEAD" else method)
        if target is None:  # the route serves only its methods and OPTIONS
            return cors.options(self._methods, None)
        if target.openai:
            return await self._respond_openai(request, target)
        raw = await read_body(request, target.body_limit) if target.reads_body else b""
        try:
            if target.streams:  # read by the handler, in its worker thread, once authenticated
                refuse_declared_excess(request, target.body_limit)
                stream = BodyStream(request.receive, asyncio.get_running_loop(), target.body_limit)
                return await in_worker_thread(target.respond, request, raw, stream, upload=True)
            if self._idempotency is not None and method == "POST":
                idempotency_key = idempotency.requested_key(request.scope)
                if idempotency_key is not None:  # never on the lane: its claim and response commit apart
                    return await in_worker_thread(target.respond_once, request, raw, idempotency_key, self._idempotency)
            if target.lane is not None:
                key = lane_key(request.scope)
                if target.lane.admits(key, len(raw)):
                    return await target.lane.run(functools.partial(target.respond, request, raw), key=key)
                # Too large, or its workspace's last write held the lane too long: a worker thread.
                return await in_worker_thread(target.respond, request, raw)
            if target.runs_inline(request):
                if target.loop_reads is not None:
                    return await target.loop_reads.run(target.respond, request, raw)
                return target.respond(request, raw)
            return await in_worker_thread(target.respond, request, raw, read=method in READ_METHODS)
        except (EngageError, HTTPException, ClientDisconnect):
            raise
        except Exception as exc:
            return self._unexpected(request, exc, engage_error_response, server_error_response)

    async def _respond_openai(self, request: Request, target: BoundOperation) -> Response:
        """An OpenAI-compatible operation's answer: in a worker thread (it may wait long on a
        model), every error in OpenAI's format."""
        try:
            raw = await read_body(request, target.body_limit) if target.reads_body else b""
            return await in_worker_thread(target.respond, request, raw, read=request.method in READ_METHODS)
        except EngageError as exc:
            return openai_format.engage_error_response(exc)
        except HTTPException as exc:
            return openai_format.http_exception_response(exc)
        except ClientDisconnect:
            raise
        except Exception as exc:
            return self._unexpected(
                request, exc, openai_format.engage_error_response, openai_format.server_error_response
            )

    def _unexpected(
        self,
        request: Request,
        exc: Exception,
        known_error: Callable[[EngageError], Response],
        server_error: Callable[[], Response],
    ) -> Response:
        """The answer to an exception no handler expected: the storage's failure it stands for (503,
        retry later), else a logged 500 (raised again in debug mode, for Starlette's traceback page)."""
        known = None if self._storage_errors is None else self._storage_errors(exc)
        if known is not None:  # the storage cannot serve now (full, read-only, busy): retry later
            log_storage_error(request, exc)
            return known_error(known)
        if self._debug:  # let Starlette's debug page show the traceback
            raise exc
        log_unexpected(request, exc)
        return server_error()


def build_routes(
    operations: Iterable[Operation],
    services: Services,
    *,
    prefix: str = API_PREFIX,
    debug: bool = False,
    short_reads: Mapping[type, ShortRead] | None = None,
    loop_reads: LoopReads | None = None,
    rate_limiter: RequestRateLimiter | None = None,
    write_lane: WriteLane | None = None,
    storage_errors: StorageErrors | None = None,
    idempotency: IdempotentRequests | None = None,
) -> list[Route]:
    """One route per path, in the order paths first appear in the table. With `debug`, unexpected
    exceptions propagate (to Starlette's traceback page) instead of becoming a generic 500. With
    `short_reads`, the reads the storage says are always short run on the event loop (see the module docstring),
    through `loop_reads` where the storage's reads wait for the network;
    with `write_lane`, the operations that may run their writes on the lane do.
    With `rate_limiter`, each key's requests are limited (`engage_http.rate_limit`). With
    `storage_errors`, the storage failures it names become their domain errors (503) instead of 500.
    With `idempotency`, a POST with an `Idempotency-Key` runs once per key (`idempotency.py`)."""
    by_path: dict[str, dict[str, BoundOperation]] = {}
    for operation in operations:
        methods = by_path.setdefault(operation.path, {})
        if operation.method in methods:
            raise ValueError(f"Duplicate operation {operation.method} {operation.path}")
        methods[operation.method] = BoundOperation(
            operation,
            services,
            short_reads=short_reads,
            loop_reads=loop_reads,
            rate_limiter=rate_limiter,
            write_lane=write_lane,
        )
    routes = []
    for path, bound in by_path.items():
        name = next(iter(bound.values())).operation.operation_id
        routes.append(
            Route(
                prefix + path,
                _Dispatcher(bound, debug=debug, storage_errors=storage_errors, idempotency=idempotency),
                methods=[*bound, "OPTIONS"],
                name=name,
            )
        )
    return routes
