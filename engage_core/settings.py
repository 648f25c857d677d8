"""Settings: one object read from `ENGAGE_*` environment variables. CLI options override them.

Every default makes `engage serve` work with nothing set.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import TypeVar

import attrs

from engage_core.campaigns.quotas import Quotas, parse_quotas
from engage_core.kernel.rate_limits import DEFAULT_LIMIT, DEFAULT_WINDOW_SECONDS
from engage_core.plans.model import DEFAULT_PLAN
from engage_core.team.model import DEFAULT_APP_URL

DEFAULT_DATABASE_URL = "sqlite:///./engage.db"
DEFAULT_LLM_MODEL = "gpt-4o-mini"
N = TypeVar("N", int, float)


@attrs.frozen
class Settings:
    database_url: str = DEFAULT_DATABASE_URL
    """`ENGAGE_DATABASE_URL`: `sqlite:///path.db` or `postgresql://user@host/db`."""

    database_read_only_guard: bool = True
    """`ENGAGE_DATABASE_READ_ONLY_GUARD`: on PostgreSQL, open the connections of read-only work with
    `default_transaction_read_only=on`, so that a write slipped into it fails; `off` behind a pooler
    in transaction mode (PgBouncer), which does not pass startup options on."""

    database_admission_cache: bool = True
    """`ENGAGE_DATABASE_ADMISSION_CACHE`: on PostgreSQL, keep each key's admission between requests,
    forgotten by every process as soon as a change to what it reads is notified (LISTEN/NOTIFY);
    `off` behind a pooler in transaction mode (PgBouncer), where LISTEN hears nothing."""

    secret_key: str | None = attrs.field(default=None, repr=False)
    """`ENGAGE_SECRET_KEY`: derives the keys that encrypt stored secrets. Required in production."""

    log_level: str = "info"
    """`ENGAGE_LOG_LEVEL`: `debug`, `info`, `warning` or `error`."""

    log_format: str = "text"
    """`ENGAGE_LOG_FORMAT`: `text` (for people) or `json` (one object per line, for collectors)."""

    run_worker: bool = True
    """`ENGAGE_RUN_WORKER`: `0` stops `engage serve` from running the delivery worker in-process."""

    worker_concurrency: int = 4
    """`ENGAGE_WORKER_CONCURRENCY`: deliveries a worker sends at once."""

    webhook_allowed_hosts: str = ""
    """`ENGAGE_WEBHOOK_ALLOWED_HOSTS`: hosts or CIDRs exempt from the SSRF guard (development, tests)."""

    webhook_timeout_seconds: float = 30.0
    """`ENGAGE_WEBHOOK_TIMEOUT`: seconds a receiver has to answer (SPEC 6: 30)."""

    webhook_lease_seconds: float = 60.0
    """`ENGAGE_WEBHOOK_LEASE`: seconds a worker holds a claimed attempt; must exceed the timeout."""

    job_lease_seconds: float = 60.0
    """`ENGAGE_JOB_LEASE`: seconds a worker holds a claimed job between two extensions (a third of
    it apart); a dead worker's job is taken over once it ends."""

    campaign_daily_quotas: str = ""
    """`ENGAGE_CAMPAIGN_DAILY_QUOTAS`: campaign messages per channel and UTC day, `channel=number` pairs
    (`whatsapp=5000,linkedin=20`) over the defaults (WhatsApp and Telegram 1000, Instagram 100,
    LinkedIn 50); `0` lifts a channel's quota."""

    campaign_weekly_quotas: str = ""
    """`ENGAGE_CAMPAIGN_WEEKLY_QUOTAS`: campaign messages per channel over the last seven days, as the
    daily ones (defaults: WhatsApp and Telegram 5000, Instagram 500, LinkedIn 100)."""

    store_url: str | None = None
    """`ENGAGE_STORE_URL`: base URL of the store connector; unset, no store is connected."""

    store_token: str | None = attrs.field(default=None, repr=False)
    """`ENGAGE_STORE_TOKEN`: bearer token sent to the store connector (never printed)."""

    store_timeout_seconds: float = 10.0
    """`ENGAGE_STORE_TIMEOUT`: seconds the store connector has to answer a status change."""

    transcription_url: str | None = None
    """`ENGAGE_TRANSCRIPTION_URL`: base URL of an OpenAI-compatible service (`.../v1`) that transcribes
    voice notes; unset, they are transcribed offline by pocketsphinx (English only)."""

    transcription_key: str | None = attrs.field(default=None, repr=False)
    """`ENGAGE_TRANSCRIPTION_KEY`: bearer key sent to the transcription service (never printed)."""

    transcription_model: str | None = None
    """`ENGAGE_TRANSCRIPTION_MODEL`: the service's model (unset: `whisper-1`)."""

    tts_url: str | None = None
    """`ENGAGE_TTS_URL`: base URL of an OpenAI-compatible service (`.../v1`) whose `/audio/speech`
    speaks the built-in voices; unset, they are spoken offline by espeak-ng."""

    tts_key: str | None = attrs.field(default=None, repr=False)
    """`ENGAGE_TTS_KEY`: bearer key sent to the speech service (never printed)."""

    tts_model: str | None = None
    """`ENGAGE_TTS_MODEL`: the speech service's model (unset: `gpt-4o-mini-tts`)."""

    voice_clone_url: str | None = None
    """`ENGAGE_VOICE_CLONE_URL`: base URL of the voice cloning provider (docs/voice.md); unset, a
    clone is refused with a message saying a provider is needed."""

    voice_clone_key: str | None = attrs.field(default=None, repr=False)
    """`ENGAGE_VOICE_CLONE_KEY`: bearer key sent to the cloning provider (never printed)."""

    embeddings_url: str | None = None
    """`ENGAGE_EMBEDDINGS_URL`: base URL of an OpenAI-compatible service (`.../v1`) whose `/embeddings`
    turns knowledge-base chunks into vectors for semantic search; unset, search is full text alone."""

    embeddings_key: str | None = attrs.field(default=None, repr=False)
    """`ENGAGE_EMBEDDINGS_KEY`: bearer key sent to the embeddings service (never printed)."""

    embeddings_model: str = "text-embedding-3-small"
    """`ENGAGE_EMBEDDINGS_MODEL`: the service's embedding model."""

    llm_url: str | None = None
    """`ENGAGE_LLM_URL`: base URL of an OpenAI-compatible service (`.../v1`) whose `/chat/completions`
    answers customers and chat completions; unset, the offline retrieval-only model answers."""

    llm_key: str | None = attrs.field(default=None, repr=False)
    """`ENGAGE_LLM_KEY`: bearer key sent to the language model service (never printed)."""

    llm_chat_model: str = DEFAULT_LLM_MODEL
    """`ENGAGE_LLM_CHAT_MODEL`: the service's model behind `service-chat` (answers to customers)."""

    llm_logic_model: str = DEFAULT_LLM_MODEL
    """`ENGAGE_LLM_LOGIC_MODEL`: the service's model behind `service-logic` (raw completions)."""

    llm_timeout_seconds: float = 60.0
    """`ENGAGE_LLM_TIMEOUT`: seconds each request to the language model has in all (tried again up to
    twice on a timeout, a 429 or a 5xx)."""
    media_store: str = "local"
    """`ENGAGE_MEDIA_STORE`: where uploaded media are kept: `local` (a directory, served by `engage
    serve` under `/files/`) or `s3` (an S3-compatible bucket, `ENGAGE_S3_*`)."""

    media_dir: str | None = None
    """`ENGAGE_MEDIA_DIR`: the directory of the local store; unset, `<database file>.media` beside a
    SQLite database, or `./engage-media` with PostgreSQL."""

    media_url: str | None = None
    """`ENGAGE_MEDIA_URL`: the public address the local store's files are fetched under; unset,
    `<ENGAGE_APP_URL>/files`."""

    s3_bucket: str | None = None
    """`ENGAGE_S3_BUCKET`: the bucket of `ENGAGE_MEDIA_STORE=s3`."""

    s3_endpoint_url: str | None = None
    """`ENGAGE_S3_ENDPOINT_URL`: an S3-compatible server (MinIO, R2, ...); unset, AWS S3."""

    s3_region: str | None = None
    """`ENGAGE_S3_REGION`: the bucket's region (unset: boto3's default)."""

    s3_access_key_id: str | None = attrs.field(default=None, repr=False)
    """`ENGAGE_S3_ACCESS_KEY_ID`: with `ENGAGE_S3_SECRET_ACCESS_KEY`; unset, boto3's usual sources
    (environment, profile, instance role)."""

    s3_secret_access_key: str | None = attrs.field(default=None, repr=False)
    """`ENGAGE_S3_SECRET_ACCESS_KEY`: the secret of `ENGAGE_S3_ACCESS_KEY_ID` (never printed)."""

    s3_public_url: str | None = None
    """`ENGAGE_S3_PUBLIC_URL`: where clients fetch the bucket's objects (a CDN, a public bucket's
    address); unset, the bucket under the endpoint, or its AWS address."""

    app_url: str = DEFAULT_APP_URL
    """`ENGAGE_APP_URL`: the public address of the application; invitation e-mails link under it."""

    smtp_host: str | None = None
    """`ENGAGE_SMTP_HOST`: the mail server; unset, e-mails are only logged (recipient and subject)."""

    smtp_port: int = 587
    """`ENGAGE_SMTP_PORT`: 587 for `starttls`, 465 for `tls`, 25 for a relay without TLS."""

    smtp_security: str = "starttls"
    """`ENGAGE_SMTP_SECURITY`: `starttls` (upgrade, or refuse to send), `tls` (from the first byte) or `none`."""

    smtp_username: str | None = None
    """`ENGAGE_SMTP_USERNAME`: the login, with `ENGAGE_SMTP_PASSWORD`; unset, the mailer does not log in."""

    smtp_password: str | None = attrs.field(default=None, repr=False)
    """`ENGAGE_SMTP_PASSWORD`: the login's password (never printed)."""

    smtp_from: str | None = None
    """`ENGAGE_SMTP_FROM`: the sender address of every e-mail; required with `ENGAGE_SMTP_HOST`."""

    smtp_timeout_seconds: float = 10.0
    """`ENGAGE_SMTP_TIMEOUT`: seconds the mail server has for each step (connecting, each answer)."""

    channels_gateway: str = "sandbox"
    """`ENGAGE_CHANNELS_GATEWAY`: `sandbox` (offline, in memory: development and tests) or `hosted`
    (the hosted messaging provider, docs/channels.md)."""

    channels_provider_url: str | None = None
    """`ENGAGE_CHANNELS_PROVIDER_URL`: the provider tenant's base URL, without `/api/v1` (hosted only)."""

    channels_provider_key: str | None = attrs.field(default=None, repr=False)
    """`ENGAGE_CHANNELS_PROVIDER_KEY`: the provider API key, sent as `X-API-KEY` (never printed)."""

    channels_webhook_secret: str | None = attrs.field(default=None, repr=False)
    """`ENGAGE_CHANNELS_WEBHOOK_SECRET`: the secret (16+ characters) the provider's callbacks carry."""

    channels_provider_timeout_seconds: float = 30.0
    """`ENGAGE_CHANNELS_PROVIDER_TIMEOUT`: seconds each provider call has to finish."""

    default_plan: str = DEFAULT_PLAN
    """`ENGAGE_DEFAULT_PLAN`: the plan (`starter`, `pro` or `business`) of workspaces without a partner."""

    rate_limit: int = DEFAULT_LIMIT
    """`ENGAGE_RATE_LIMIT`: requests each workspace key and each partner key may make per window."""

    rate_limit_window_seconds: int = DEFAULT_WINDOW_SECONDS
    """`ENGAGE_RATE_LIMIT_WINDOW`: the window's length in seconds."""

    redis_url: str | None = attrs.field(default=None, repr=False)
    """`ENGAGE_REDIS_URL`: `redis://host:port/db`; set, rate limits are counted in Redis and shared
    by every server process; unset, each process counts its own (in memory)."""

    redis_prefix: str | None = None
    """`ENGAGE_REDIS_PREFIX`: the start of every rate-limit key in Redis; unset, `engage:<12 hex digits
    naming the database>:ratelimit:`, so deployments sharing a Redis never share counters."""

    password_hash_concurrency: int | None = None
    """`ENGAGE_PASSWORD_HASH_CONCURRENCY`: password hashes (64 MiB each) one process runs at once;
    unset, as many as a quarter of the memory available at start-up holds, at most one per CPU."""

    password_hash_queue: int = 16
    """`ENGAGE_PASSWORD_HASH_QUEUE`: password hashes that may wait for a turn; more answer 503."""

    metrics: bool = False
    """`ENGAGE_METRICS`: `on` serves Prometheus metrics at `GET /metrics` (needs the `metrics` extra);
    `off` (the default) serves nothing and measures nothing."""

    metrics_token: str | None = attrs.field(default=None, repr=False)
    """`ENGAGE_METRICS_TOKEN`: set, a scrape of `/metrics` must send `Authorization: Bearer <token>`."""

    tracing: bool = False
    """`ENGAGE_TRACING`: `on` sends OpenTelemetry spans of requests, SQL statements and webhook
    attempts (needs the `tracing` extra; where they go is set by the standard `OTEL_*` variables);
    `off` (the default) imports nothing of OpenTelemetry."""

    @property
    def campaign_quotas(self) -> Quotas:
        """The campaigns' per-channel quotas: the defaults with `ENGAGE_CAMPAIGN_*_QUOTAS` over them."""
        return Quotas.from_settings(self.campaign_daily_quotas, self.campaign_weekly_quotas)

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        return cls(
            database_url=env.get("ENGAGE_DATABASE_URL") or DEFAULT_DATABASE_URL,
            database_read_only_guard=_switch(env, "ENGAGE_DATABASE_READ_ONLY_GUARD", default=True),
            database_admission_cache=_switch(env, "ENGAGE_DATABASE_ADMISSION_CACHE", default=True),
            secret_key=env.get("ENGAGE_SECRET_KEY") or None,
            log_level=(env.get("ENGAGE_LOG_LEVEL") or "info").lower(),
            log_format=(env.get("ENGAGE_LOG_FORMAT") or "text").strip().lower(),
            run_worker=(env.get("ENGAGE_RUN_WORKER") or "1").strip().lower() not in ("0", "false", "no", "off"),
            worker_concurrency=_number(env, "ENGAGE_WORKER_CONCURRENCY", 4, int),
            webhook_allowed_hosts=env.get("ENGAGE_WEBHOOK_ALLOWED_HOSTS") or "",
            webhook_timeout_seconds=_number(env, "ENGAGE_WEBHOOK_TIMEOUT", 30.0, float),
            webhook_lease_seconds=_number(env, "ENGAGE_WEBHOOK_LEASE", 60.0, float),
            job_lease_seconds=_number(env, "ENGAGE_JOB_LEASE", 60.0, float),
            campaign_daily_quotas=_quotas(env, "ENGAGE_CAMPAIGN_DAILY_QUOTAS"),
            campaign_weekly_quotas=_quotas(env, "ENGAGE_CAMPAIGN_WEEKLY_QUOTAS"),
            store_url=(env.get("ENGAGE_STORE_URL") or "").strip() or None,
            store_token=env.get("ENGAGE_STORE_TOKEN") or None,
            store_timeout_seconds=_number(env, "ENGAGE_STORE_TIMEOUT", 10.0, float),
            transcription_url=(env.get("ENGAGE_TRANSCRIPTION_URL") or "").strip() or None,
            transcription_key=env.get("ENGAGE_TRANSCRIPTION_KEY") or None,
            transcription_model=(env.get("ENGAGE_TRANSCRIPTION_MODEL") or "").strip() or None,
            tts_url=(env.get("ENGAGE_TTS_URL") or "").strip() or None,
            tts_key=env.get("ENGAGE_TTS_KEY") or None,
            tts_model=(env.get("ENGAGE_TTS_MODEL") or "").strip() or None,
            voice_clone_url=(env.get("ENGAGE_VOICE_CLONE_URL") or "").strip() or None,
            voice_clone_key=env.get("ENGAGE_VOICE_CLONE_KEY") or None,
            embeddings_url=(env.get("ENGAGE_EMBEDDINGS_URL") or "").strip() or None,
            embeddings_key=env.get("ENGAGE_EMBEDDINGS_KEY") or None,
            embeddings_model=(env.get("ENGAGE_EMBEDDINGS_MODEL") or "").strip() or "text-embedding-3-small",
            llm_url=(env.get("ENGAGE_LLM_URL") or "").strip() or None,
            llm_key=env.get("ENGAGE_LLM_KEY") or None,
            llm_chat_model=(env.get("ENGAGE_LLM_CHAT_MODEL") or "").strip() or DEFAULT_LLM_MODEL,
            llm_logic_model=(env.get("ENGAGE_LLM_LOGIC_MODEL") or "").strip() or DEFAULT_LLM_MODEL,
            llm_timeout_seconds=_number(env, "ENGAGE_LLM_TIMEOUT", 60.0, float),
            media_store=(env.get("ENGAGE_MEDIA_STORE") or "local").strip().lower(),
            media_dir=(env.get("ENGAGE_MEDIA_DIR") or "").strip() or None,
            media_url=(env.get("ENGAGE_MEDIA_URL") or "").strip() or None,
            s3_bucket=(env.get("ENGAGE_S3_BUCKET") or "").strip() or None,
            s3_endpoint_url=(env.get("ENGAGE_S3_ENDPOINT_URL") or "").strip() or None,
            s3_region=(env.get("ENGAGE_S3_REGION") or "").strip() or None,
            s3_access_key_id=(env.get("ENGAGE_S3_ACCESS_KEY_ID") or "").strip() or None,
            s3_secret_access_key=env.get("ENGAGE_S3_SECRET_ACCESS_KEY") or None,
            s3_public_url=(env.get("ENGAGE_S3_PUBLIC_URL") or "").strip() or None,
            app_url=(env.get("ENGAGE_APP_URL") or "").strip() or DEFAULT_APP_URL,
            smtp_host=(env.get("ENGAGE_SMTP_HOST") or "").strip() or None,
            smtp_port=_number(env, "ENGAGE_SMTP_PORT", 587, int),
            smtp_security=(env.get("ENGAGE_SMTP_SECURITY") or "starttls").strip().lower(),
            smtp_username=env.get("ENGAGE_SMTP_USERNAME") or None,
            smtp_password=env.get("ENGAGE_SMTP_PASSWORD") or None,
            smtp_from=(env.get("ENGAGE_SMTP_FROM") or "").strip() or None,
            smtp_timeout_seconds=_number(env, "ENGAGE_SMTP_TIMEOUT", 10.0, float),
            channels_gateway=(env.get("ENGAGE_CHANNELS_GATEWAY") or "sandbox").strip().lower(),
            channels_provider_url=(env.get("ENGAGE_CHANNELS_PROVIDER_URL") or "").strip() or None,
            channels_provider_key=env.get("ENGAGE_CHANNELS_PROVIDER_KEY") or None,
            channels_webhook_secret=env.get("ENGAGE_CHANNELS_WEBHOOK_SECRET") or None,
            channels_provider_timeout_seconds=_number(env, "ENGAGE_CHANNELS_PROVIDER_TIMEOUT", 30.0, float),
            default_plan=(env.get("ENGAGE_DEFAULT_PLAN") or DEFAULT_PLAN).strip().lower(),
            rate_limit=_number(env, "ENGAGE_RATE_LIMIT", DEFAULT_LIMIT, int),
            rate_limit_window_seconds=_number(env, "ENGAGE_RATE_LIMIT_WINDOW", DEFAULT_WINDOW_SECONDS, int),
            redis_url=(env.get("ENGAGE_REDIS_URL") or "").strip() or None,
            redis_prefix=(env.get("ENGAGE_REDIS_PREFIX") or "").strip() or None,
            password_hash_concurrency=_number(env, "ENGAGE_PASSWORD_HASH_CONCURRENCY", 0, int) or None,
            password_hash_queue=_number(env, "ENGAGE_PASSWORD_HASH_QUEUE", 16, int),
            metrics=_switch(env, "ENGAGE_METRICS", default=False),
            metrics_token=env.get("ENGAGE_METRICS_TOKEN") or None,
            tracing=_switch(env, "ENGAGE_TRACING", default=False),
        )


def _number(env: Mapping[str, str], name: str, default: N, kind: Callable[[str], N]) -> N:
    raw = env.get(name)
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError as exc:
        raise ValueError(f"{name} must be a number, not {raw!r}") from exc
    if value <= 0:
        raise ValueError(f"{name} must be greater than 0")
    return value


def _quotas(env: Mapping[str, str], name: str) -> str:
    raw = (env.get(name) or "").strip()
    parse_quotas(name, raw)  # refused at start-up, not at the first campaign
    return raw


def _switch(env: Mapping[str, str], name: str, *, default: bool) -> bool:
    raw = (env.get(name) or "").strip().lower()
    if not raw:
        return default
    if raw in ("on", "1", "true", "yes"):
        return True
    if raw in ("off", "0", "false", "no"):
        return False
    raise ValueError(f"{name} must be on or off, not {raw!r}")
