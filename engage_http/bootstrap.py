"""The composition root: settings -> database and outbound adapters -> services -> app.

With `worker.py`, `secret_key.py` and `media_wiring.py`, this is the only part of `engage_http` that imports the
adapters (`engage_sql`, `engage_connectors`). `app_factory` takes no arguments, for `uvicorn --factory
engage_http.bootstrap:app_factory` (each worker process builds its own app, engine and connection
pool). It applies no migrations: with several workers they would race each other, so they are applied
once beforehand (`engage serve` and `engage db upgrade` do).

Webhook secrets are encrypted at rest under `ENGAGE_SECRET_KEY`. On SQLite, when it is unset, a random
development key is generated once and kept beside the database file (`<database>.secret-key`, mode
0600); on PostgreSQL (a production deployment, often several machines) the key is required
(`secret_key.py`).

Status changes of store-sourced orders go to the store connector of `ENGAGE_STORE_URL` (with
`ENGAGE_STORE_TOKEN`); without it they are refused with a 422 that says no store is connected.

Team members' passwords are hashed with argon2id, a bounded number at once
(`ENGAGE_PASSWORD_HASH_CONCURRENCY`, `ENGAGE_PASSWORD_HASH_QUEUE`). E-mail (team invitations, linking under
`ENGAGE_APP_URL`) goes to the SMTP server of `ENGAGE_SMTP_HOST`; without it, each message is only
logged (recipient and subject).

The idempotency keys of `POST` requests (`Idempotency-Key`) are kept in the database, so every
process answers a retry alike (`engage_http.idempotency`).

Each workspace key and partner key may make `ENGAGE_RATE_LIMIT` requests (120) per
`ENGAGE_RATE_LIMIT_WINDOW` seconds (60), counted in this process or, with `ENGAGE_REDIS_URL`, in
Redis for every process (its keys start with `ENGAGE_REDIS_PREFIX`, by default one named after the
database, so deployments sharing a Redis count apart). Workspaces without a partner run on
`ENGAGE_DEFAULT_PLAN` (`business`).

AI answers and chat completions (`/chat/completions`) come from the OpenAI-compatible service of
`ENGAGE_LLM_URL` (`ENGAGE_LLM_KEY`, `ENGAGE_LLM_CHAT_MODEL`, `ENGAGE_LLM_LOGIC_MODEL`,
`ENGAGE_LLM_TIMEOUT`); without it, from the offline retrieval-only model (docs/ai.md). Each
workspace's default AI agent is the persona `service-chat` answers as (a generic assistant without one).
Uploaded media are kept by the blob store of `ENGAGE_MEDIA_STORE` (`media_wiring.py`): a local
directory by default, whose files this app serves, or an S3-compatible bucket.

Channels go through the gateway of `ENGAGE_CHANNELS_GATEWAY` (docs/channels.md): the in-memory
sandbox by default (its control routes `/sandbox/...` are then served; its accounts live in this
process, so run one server process with it), or the hosted messaging provider (its callback route
`/channels/provider/callbacks` is then served). A hosted gateway without its URL, key or callback
secret refuses to start.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import attrs
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool

from engage_connectors.blobs import LocalBlobStore
from engage_connectors.hosted_gateway import HostedCallbackReader, HostedGateway
from engage_connectors.hosted_messaging import CallbackAuthenticator, HostedMessagingClient
from engage_connectors.llm import OfflineLanguageModel, OpenAICompatibleModel
from engage_connectors.openai_embeddings import OpenAIEmbedder
from engage_connectors.passwords import BoundedHasher, bounded_argon2id
from engage_connectors.redis_rate_limiter import RedisRateLimiter
from engage_connectors.secrets import FernetCipher
from engage_connectors.smtp_mailer import SECURITY_MODES, SmtpMailer
from engage_connectors.ssrf import AddressPolicy
from engage_connectors.store_platform import HttpStorePlatform, NoStorePlatform
from engage_connectors.target_guard import DnsTargetGuard
from engage_core.answering.chat import SERVICE_CHAT, SERVICE_LOGIC
from engage_core.kernel.clock import Clock, SystemClock
from engage_core.kernel.errors import EngageError
from engage_core.kernel.mail import LoggingMailer
from engage_core.kernel.rate_limits import InMemoryRateLimiter, RateLimitPolicy
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.messaging.sandbox_controls import SandboxControls
from engage_core.plans.entitlements import Entitlements
from engage_core.services import Services
from engage_core.settings import Settings
from engage_core.webhooks.ports import WebhookSender
from engage_http import access_log
from engage_http.app import create_app
from engage_http.dashboard import SessionCookies
from engage_http.embedding import LifespanCheck, LifespanState
from engage_http.health import Readiness, database_probe, secret_probe, worker_probe
from engage_http.idempotency import IdempotentRequests
from engage_http.media_wiring import check_media_settings, media_ports
from engage_http.rate_limit import RequestRateLimiter
from engage_http.secret_key import secret_cipher
from engage_http.webchat.live import LiveHub
from engage_http.worker import DeliveryWorkerHandle, JobRunnerHandle, start_delivery_worker, start_job_runner
from engage_sql import Database, PostgresLiveFeed, deployment_name, unavailable

if TYPE_CHECKING:  # imported where used: optional extras, and adapters slow to import
    from engage_connectors.crawler import HttpCrawler
    from engage_connectors.documents import FileExtractor
    from engage_http.metrics import Metrics
    from engage_http.tracing import Tracing

logger = logging.getLogger("engage.bootstrap")


class StoreMisconfigured(EngageError):
    """`ENGAGE_STORE_URL` is set, but the store connector cannot be configured from the settings."""


def store_platform(settings: Settings) -> HttpStorePlatform | NoStorePlatform:
    """The store connector of `ENGAGE_STORE_URL`, or, when it is unset, the stand-in that refuses
    every status change of a store-sourced order with a message saying no store is connected."""
    if not settings.store_url:
        return NoStorePlatform()
    if not settings.store_token:
        raise StoreMisconfigured(
            "ENGAGE_STORE_TOKEN must be set when ENGAGE_STORE_URL is: the store connector needs it."
        )
    try:
        return HttpStorePlatform(settings.store_url, settings.store_token, timeout=settings.store_timeout_seconds)
    except ValueError as exc:
        raise StoreMisconfigured(f"ENGAGE_STORE_URL is invalid: {exc}") from exc


class MailerMisconfigured(EngageError):
    """`ENGAGE_SMTP_HOST` is set, but the SMTP mailer cannot be configured from the settings."""


def mailer(settings: Settings) -> SmtpMailer | LoggingMailer:
    """The SMTP mailer of `ENGAGE_SMTP_HOST`, or, when it is unset, the one that only logs."""
    if not settings.smtp_host:
        return LoggingMailer()
    if not settings.smtp_from:
        raise MailerMisconfigured("ENGAGE_SMTP_FROM must be set when ENGAGE_SMTP_HOST is: it is the sender address.")
    if settings.smtp_security not in SECURITY_MODES:
        raise MailerMisconfigured(
            f"ENGAGE_SMTP_SECURITY must be one of {', '.join(SECURITY_MODES)}, not {settings.smtp_security!r}."
        )
    try:
        return SmtpMailer(
            settings.smtp_host,
            settings.smtp_port,
            sender=settings.smtp_from,
            username=settings.smtp_username,
            password=settings.smtp_password,
            security=settings.smtp_security,
            timeout=settings.smtp_timeout_seconds,
        )
    except ValueError as exc:  # a sender that is no address, a username without a password, ...
        raise MailerMisconfigured(f"The SMTP settings are invalid: {exc}") from exc


def check_settings(settings: Settings) -> None:
    """Refuse settings that `build_app` would refuse, touching nothing: for commands that migrate
    first, so that a mistake in the settings never leaves a database migrated by a server that
    could not start."""
    _close_store(store_platform(settings))
    mailer(settings)
    channel_wiring(settings).close()
    check_media_settings(settings)


def target_guard(settings: Settings) -> DnsTargetGuard:
    """The SSRF guard of webhook targets, with the exemptions of `ENGAGE_WEBHOOK_ALLOWED_HOSTS`."""
    return DnsTargetGuard(AddressPolicy.from_setting(settings.webhook_allowed_hosts))


def website_crawler(settings: Settings) -> HttpCrawler:
    """The crawler of website entries: every request and redirect hop through the SSRF guard, with
    the exemptions of `ENGAGE_WEBHOOK_ALLOWED_HOSTS` (the same hosts webhooks may reach). Imported
    here: trafilatura and lxml take a tenth of a second, which a CLI command should not pay."""
    from engage_connectors.crawler import CrawlLimits, HttpCrawler

    return HttpCrawler(AddressPolicy.from_setting(settings.webhook_allowed_hosts), CrawlLimits())


def document_extractor() -> FileExtractor:
    """The reader of uploaded documents (imported here, like the crawler: pypdf, python-docx and
    openpyxl take a tenth of a second to import)."""
    from engage_connectors.documents import FileExtractor

    return FileExtractor()


class DeferredCipher:
    """The secret cipher, resolved on first use: a command that never touches a secret (creating an
    account from the CLI, say) needs no `ENGAGE_SECRET_KEY`."""

    def __init__(self, settings: Settings, database: Database) -> None:
        self._settings = settings
        self._database = database
        self._cipher: FernetCipher | None = None

    def _resolved(self) -> FernetCipher:
        if self._cipher is None:
            self._cipher = secret_cipher(self._settings, self._database)
        return self._cipher

    def encrypt(self, plaintext: str) -> str:
        return self._resolved().encrypt(plaintext)

    def decrypt(self, ciphertext: str) -> str:
        return self._resolved().decrypt(ciphertext)


class ChannelsMisconfigured(EngageError):
    """The `ENGAGE_CHANNELS_*` settings do not make a working channel gateway."""


@attrs.frozen
class ChannelWiring:
    """The channel gateway and what comes with it: the sandbox (its HTTP controls are served) or
    the hosted provider's callback reader (its callback route is served)."""

    gateway: SandboxGateway | HostedGateway
    sandbox: SandboxGateway | None = None
    callbacks: HostedCallbackReader | None = None

    def attach(self, services: Services, database: Database) -> SandboxControls | None:
        """Hand the sandbox's inbound traffic to `services`; the sandbox controls, if any."""
        if self.sandbox is None:
            return None
        self.sandbox.attach(services.inbox)
        return SandboxControls(database.uow, self.sandbox)

    def close(self) -> None:
        if isinstance(self.gateway, HostedGateway):
            self.gateway.close()


def channel_wiring(settings: Settings) -> ChannelWiring:
    """The gateway of `ENGAGE_CHANNELS_GATEWAY`: the in-memory sandbox (default), or the hosted
    provider, whose URL, key and callback secret must then all be set."""
    if settings.channels_gateway == "sandbox":
        sandbox = SandboxGateway(SystemClock())
        return ChannelWiring(gateway=sandbox, sandbox=sandbox)
    if settings.channels_gateway != "hosted":
        raise ChannelsMisconfigured(
            f"ENGAGE_CHANNELS_GATEWAY must be sandbox or hosted, not {settings.channels_gateway!r}."
        )
    missing = [
        name
        for name, value in (
            ("ENGAGE_CHANNELS_PROVIDER_URL", settings.channels_provider_url),
            ("ENGAGE_CHANNELS_PROVIDER_KEY", settings.channels_provider_key),
            ("ENGAGE_CHANNELS_WEBHOOK_SECRET", settings.channels_webhook_secret),
        )
        if not value
    ]
    if missing:
        raise ChannelsMisconfigured(f"ENGAGE_CHANNELS_GATEWAY=hosted needs {', '.join(missing)}.")
    assert settings.channels_provider_url and settings.channels_provider_key and settings.channels_webhook_secret
    try:
        authenticator = CallbackAuthenticator(settings.channels_webhook_secret)
        client = HostedMessagingClient(
            settings.channels_provider_url,
            settings.channels_provider_key,
            timeout=settings.channels_provider_timeout_seconds,
        )
    except ValueError as exc:
        raise ChannelsMisconfigured(f"The ENGAGE_CHANNELS_* settings are invalid: {exc}") from exc
    gateway = HostedGateway(client, SystemClock())
    return ChannelWiring(gateway=gateway, callbacks=HostedCallbackReader(authenticator, gateway))


def voice_ports(settings: Settings) -> dict[str, Any]:
    """The transcriber and audio prober of voice entries (`ENGAGE_TRANSCRIPTION_*`), or none when the
    `voice` extra (PyAV, pocketsphinx) is not installed: then every service but voice entries works."""
    try:
        from engage_connectors.speech import AvAudioProber, transcriber_for
    except ImportError:
        return {}
    transcriber = transcriber_for(settings.transcription_url, settings.transcription_key, settings.transcription_model)
    return {"transcriber": transcriber, "prober": AvAudioProber()}


def speech_ports(settings: Settings) -> dict[str, Any]:
    """The speech synthesizer (`ENGAGE_TTS_*`, else espeak-ng), the cloning provider
    (`ENGAGE_VOICE_CLONE_*`, else none) and the clone-sample checker, or none when PyAV is not
    installed: then every service but voice works."""
    try:
        from engage_connectors.voice import AvSampleProber, cloner_for, synthesizer_for
    except ImportError:
        return {}
    return {
        "synthesizer": synthesizer_for(settings.tts_url, settings.tts_key, settings.tts_model),
        "cloner": cloner_for(settings.voice_clone_url, settings.voice_clone_key),
        "sample_prober": AvSampleProber(),
    }


def embedder(settings: Settings) -> OpenAIEmbedder | None:
    """The OpenAI-compatible embeddings client of `ENGAGE_EMBEDDINGS_*`, or None (full-text search)."""
    if settings.embeddings_url is None:
        return None
    return OpenAIEmbedder(settings.embeddings_url, settings.embeddings_model, api_key=settings.embeddings_key)


def language_model(settings: Settings) -> OpenAICompatibleModel | OfflineLanguageModel:
    """The OpenAI-compatible service of `ENGAGE_LLM_*` when `ENGAGE_LLM_URL` is set, else the offline
    retrieval-only model (docs/ai.md)."""
    if settings.llm_url is None:
        return OfflineLanguageModel()
    models = {SERVICE_CHAT: settings.llm_chat_model, SERVICE_LOGIC: settings.llm_logic_model}
    return OpenAICompatibleModel(
        settings.llm_url, models, api_key=settings.llm_key, timeout=settings.llm_timeout_seconds
    )


def _close_language_model(model: OpenAICompatibleModel | OfflineLanguageModel) -> None:
    if isinstance(model, OpenAICompatibleModel):
        model.close()


def build_services(settings: Settings, database: Database) -> Services:
    """Every use case over `database`, with the real target guard and store connector, and the cipher
    resolved on first use."""
    return Services.build(
        database.uow,
        cipher=DeferredCipher(settings, database),
        guard=target_guard(settings),
        store=store_platform(settings),
        hasher=password_hasher(settings),
        mailer=mailer(settings),
        app_url=settings.app_url,
        default_plan=settings.default_plan,
        crawler=website_crawler(settings),
        extractor=document_extractor(),
        embedder=embedder(settings),
        language_model=language_model(settings),
        # A stand-alone worker sends campaigns through the hosted provider only: the sandbox lives in
        # the memory of the `engage serve` whose in-process runner sends its campaigns.
        gateway=channel_wiring(settings).gateway if settings.channels_gateway == "hosted" else None,
        campaign_quotas=settings.campaign_quotas,
        job_lease_seconds=settings.job_lease_seconds,
        **voice_ports(settings),
        **speech_ports(settings),
        **media_ports(settings, database),
    )


def password_hasher(settings: Settings) -> BoundedHasher:
    """argon2id, at most `ENGAGE_PASSWORD_HASH_CONCURRENCY` hashes at once (unset: as memory allows)
    and `ENGAGE_PASSWORD_HASH_QUEUE` waiting; beyond that a request answers 503 with Retry-After."""
    return bounded_argon2id(settings.password_hash_concurrency, settings.password_hash_queue)


def rate_limiter(settings: Settings, clock: Clock | None = None) -> RequestRateLimiter:
    """`ENGAGE_RATE_LIMIT` requests per `ENGAGE_RATE_LIMIT_WINDOW` seconds per key, counted in the
    Redis of `ENGAGE_REDIS_URL` (shared by every process, under `redis_prefix`) or, unset, in this
    process's memory."""
    policy = RateLimitPolicy(settings.rate_limit, settings.rate_limit_window_seconds)
    if settings.redis_url:
        limiter = RedisRateLimiter.from_url(settings.redis_url, prefix=redis_prefix(settings))
        return RequestRateLimiter(limiter, policy, clock)
    return RequestRateLimiter(InMemoryRateLimiter(), policy, clock)


def redis_prefix(settings: Settings) -> str:
    """`ENGAGE_REDIS_PREFIX`, else one named after the database: the processes of a deployment share
    their counters, and another deployment using the same Redis has counters of its own."""
    return settings.redis_prefix or f"engage:{deployment_name(settings.database_url)}:ratelimit:"


def _close_limiter(limiter: RequestRateLimiter) -> None:
    if isinstance(limiter.limiter, RedisRateLimiter):
        limiter.limiter.close()


def start_worker(settings: Settings, database: Database) -> DeliveryWorkerHandle:
    """Start the delivery worker over `database` (what `engage worker` runs; `engage serve` runs it in
    the app's lifespan). Stop it with the handle's `stop()`."""
    return start_delivery_worker(
        database.delivery_queue(),
        secret_cipher(settings, database),
        settings,
        gate=delivery_gate(settings, database),
        outbound=database.outbound_guard(),
    )


def delivery_gate(settings: Settings, database: Database) -> Entitlements:
    """Which workspaces the delivery worker delivers to: those whose plan in force has webhooks
    (a workspace without a partner: `ENGAGE_DEFAULT_PLAN`'s)."""
    return Entitlements(database.uow, SystemClock(), settings.default_plan)


def build_app(settings: Settings | None = None, *, migrate: bool = True) -> Starlette:
    """Connect the database (applying pending migrations when `migrate`) and build the app on it.

    `GET /ready` checks the database, its migrations, the worker (when this process runs one) and
    the secret key (`engage_http.health`). With `settings.metrics`, `GET /metrics` serves
    Prometheus metrics (`engage_http.metrics`); with `settings.tracing`, requests, SQL statements and
    webhook attempts are OpenTelemetry spans (`engage_http.tracing`).

    When `settings.run_worker`, the app's lifespan runs the delivery worker and the job runner (with
    the handlers the services declare, `Services.job_handlers`); leaving the lifespan stops them,
    closes the store connector's connections and then disposes of the database. Mounted in another
    app, run that lifespan in the host's (`engage_http.embedding`); without it the first request logs a
    warning.
    """
    settings = settings or Settings.from_env()
    metrics = build_metrics(settings)  # before anything is touched: a missing extra is refused first
    tracing = build_tracing(settings)
    access_log.install()  # keys, secrets and login-link tokens never reach the access log
    mail = mailer(settings)  # a misconfigured mail server or store is refused before anything is touched
    store = store_platform(settings)
    check_media_settings(settings)
    embeddings = embedder(settings)
    llm = language_model(settings)
    channels = channel_wiring(settings)
    database = Database.connect(settings.database_url, read_only_guard=settings.database_read_only_guard)
    if tracing is not None:
        tracing.engine(database.engine)
    try:
        cipher = secret_cipher(settings, database)  # before migrating: a missing key touches nothing
        media = media_ports(settings, database)
        if migrate:
            database.upgrade()
        # Every outbound port goes through the storage's guard: on SQLite, a call from a write-lane
        # batch (whose changes are not durable yet) raises rather than acting on them; on
        # PostgreSQL, so does a call from a short request on the event loop, which it would stall.
        outbound = database.outbound_guard()
        # Web chat's live streams wake through this process's hub; on PostgreSQL every process's
        # notices reach every hub (LISTEN/NOTIFY), so several `engage serve` deliver live together.
        hub = LiveHub()
        listener = (
            PostgresLiveFeed(database.engine, hub.publish) if database.engine.dialect.name == "postgresql" else None
        )
        services = Services.build(
            database.uow,
            cipher=cipher,
            guard=outbound(target_guard(settings), "target guard"),
            store=outbound(store, "store platform"),
            hasher=password_hasher(settings),
            mailer=outbound(mail, "mailer"),
            app_url=settings.app_url,
            gateway=outbound(channels.gateway, "channel gateway"),
            default_plan=settings.default_plan,
            crawler=outbound(website_crawler(settings), "crawler"),
            embedder=None if embeddings is None else outbound(embeddings, "embedder"),
            language_model=outbound(llm, "language model"),
            extractor=outbound(document_extractor(), "document extractor"),
            campaign_quotas=settings.campaign_quotas,
            job_lease_seconds=settings.job_lease_seconds,
            **{name: outbound(port, name) for name, port in voice_ports(settings).items()},
            **{name: outbound(port, name) for name, port in speech_ports(settings).items()},
            **{name: outbound(port, name) for name, port in media.items()},
            live=listener or hub,
        )
        sandbox = channels.attach(services, database)
        limiter = rate_limiter(settings)
        # Short reads (authentication among them) run on the event loop: on SQLite in WAL mode a
        # read takes no lock a writer holds and waits for no fsync; PostgreSQL's wait for the server
        # without blocking the loop (`loop_calls`). Short writes run on SQLite's write lane, and on
        # the loop too on PostgreSQL. Neither when the rate limiter asks Redis, which would block.
        on_loop = not isinstance(limiter.limiter, RedisRateLimiter)
        loop_calls = database.loop_calls() if on_loop else None
        lane = database.write_lane(loop_calls) if on_loop else None
        admissions = database.admission_listener() if settings.database_admission_cache else None
        head = database.head_revision()  # read the scripts once, not at every readiness probe
        job_handlers = services.job_handlers()
    except BaseException:
        _close_store(store)
        if embeddings is not None:
            embeddings.close()
        _close_language_model(llm)
        channels.close()
        database.dispose()
        raise

    state = LifespanState()

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        worker: DeliveryWorkerHandle | None = None
        runner: JobRunnerHandle | None = None
        state.started = True
        if listener is not None:
            listener.start()
        if admissions is not None:
            admissions.start()
        if on_loop and loop_calls is None:  # SQLite's short reads keep one connection (this is the loop's thread)
            database.uow.pin_reader()
        try:
            if settings.run_worker:
                worker = start_delivery_worker(
                    database.delivery_queue(),
                    cipher,
                    settings,
                    gate=services.entitlements,
                    outbound=outbound if tracing is None else traced(tracing, outbound),
                    on_attempt=None if metrics is None else metrics.delivery_outcome,
                )
            if settings.run_worker and job_handlers:
                runner = start_job_runner(
                    database.job_queue(),
                    job_handlers,
                    lease_seconds=settings.job_lease_seconds,
                    on_outcome=None if metrics is None else metrics.job_outcome,
                )
            app.state.delivery_worker = worker
            app.state.job_runner = runner
            yield
        finally:
            if runner is not None:
                await run_in_threadpool(runner.stop)
            if worker is not None:
                await run_in_threadpool(worker.stop)
            if lane is not None:
                await run_in_threadpool(lane.close)
            if listener is not None:
                await run_in_threadpool(listener.stop)
            if admissions is not None:
                await run_in_threadpool(admissions.stop)
            state.started = False
            database.uow.unpin_reader()
            if loop_calls is not None:
                loop_calls.close()
            _close_store(store)
            if embeddings is not None:
                embeddings.close()
            _close_language_model(llm)
            channels.close()
            _close_limiter(limiter)
            database.dispose()

    def delivery_worker() -> DeliveryWorkerHandle | None:
        worker: DeliveryWorkerHandle | None = getattr(app.state, "delivery_worker", None)
        return worker

    def job_runner() -> JobRunnerHandle | None:
        runner: JobRunnerHandle | None = getattr(app.state, "job_runner", None)
        return runner

    readiness = Readiness(
        [
            database_probe(
                database.stored_revision, head, secret_probe(database.newest_webhook_secret, cipher.decrypt)
            ),
            worker_probe(delivery_worker, expected=settings.run_worker, jobs=job_runner if job_handlers else None),
        ]
    )
    app = create_app(
        services,
        readiness=readiness,
        lifespan=lifespan,
        sandbox=sandbox,
        provider_callbacks=channels.callbacks,
        short_reads=database.short_reads() if on_loop else None,
        loop_reads=loop_calls,
        sessions=SessionCookies(cipher, SystemClock()),
        rate_limiter=limiter,
        write_lane=lane,
        storage_errors=unavailable,
        metrics=metrics,
        tracing=tracing,
        idempotency=IdempotentRequests(database.idempotency_store(), SystemClock()),
        files=media["blobs"] if isinstance(media["blobs"], LocalBlobStore) else None,
        live=hub,
    )
    if metrics is not None:
        metrics.watch_backlog(database.webhook_backlog)
        metrics.watch_jobs(database.job_queue().backlog)
    app.add_middleware(LifespanCheck, state=state)  # mounted without its lifespan, it says so
    return app


def build_metrics(settings: Settings) -> Metrics | None:
    """The app's metrics when `ENGAGE_METRICS` is on (None when off: `prometheus_client` is then
    never imported, and need not be installed)."""
    if not settings.metrics:
        return None
    try:
        from engage_http.metrics import Metrics
    except ImportError as exc:
        raise RuntimeError(
            "ENGAGE_METRICS=on needs the prometheus-client package: pip install 'engage-platform[metrics]'"
        ) from exc
    return Metrics.from_environment(token=settings.metrics_token)


def build_tracing(settings: Settings) -> Tracing | None:
    """OpenTelemetry tracing when `ENGAGE_TRACING` is on (None when off: nothing of OpenTelemetry is
    then imported, and it need not be installed)."""
    if not settings.tracing:
        return None
    try:
        from engage_http.tracing import Tracing
    except ImportError as exc:
        raise RuntimeError(
            "ENGAGE_TRACING=on needs the OpenTelemetry packages: pip install 'engage-platform[tracing]'"
        ) from exc
    return Tracing()


SenderWrapper = Callable[[WebhookSender, str], WebhookSender]
"""What the delivery worker wraps its sender in (`start_delivery_worker`'s `outbound`)."""


def traced(tracing: Tracing, outbound: SenderWrapper) -> SenderWrapper:
    """`outbound` with a span around each webhook attempt (the worker's sender is the only port it wraps)."""
    return lambda sender, name: outbound(tracing.sender(sender), name)


def _close_store(store: HttpStorePlatform | NoStorePlatform) -> None:
    if isinstance(store, HttpStorePlatform):
        store.close()


def app_factory() -> Starlette:
    """`build_app` from `ENGAGE_*` environment variables, without migrating (for `uvicorn --factory`)."""
    return build_app(Settings.from_env(), migrate=False)
