"""Benchmark: a campaign to 100,000 contacts, on SQLite and PostgreSQL.

    .venv/bin/python -m bench.campaigns [--contacts 100000] [--drain-seconds 20] [--postgres postgresql://...]

Seeds an account with `--contacts` WhatsApp contacts (half of them in a list, every fourth one tagged
and so in a rule segment, the two overlapping), connects WhatsApp through the sandbox gateway, and
measures:

- **snapshot**: the seconds `POST /campaigns/{id}/start` takes in the service (the audience of the
  list plus the segment resolved and deduplicated into the recipients in one `INSERT ... SELECT`,
  the counters and the job queued, one transaction). Target (issue 20): under 5 s.
- **drain**: messages per second the send job hands to the sandbox gateway and records, one
  worker, for `--drain-seconds` (the campaign's rate set to its maximum, 1,000 a second,
  and the quotas lifted, so the sender is what is measured), and that as a share of the rate
  (`of_the_rate`: 1.0 is as fast as the campaign may send; the sandbox itself takes some
  400,000 sends a second, so it is never the limit).

SQLite runs in a temporary file; PostgreSQL (with `--postgres URL`, a server URL: a database of its
own is created there and dropped after) when given. Prints one JSON object per engine.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import attrs
from sqlalchemy import create_engine, insert, text

from engage_core.campaigns.model import FINAL, SEND_RATE_MAX, Campaign
from engage_core.campaigns.quotas import Quotas
from engage_core.campaigns.service import CampaignInput
from engage_core.jobs.runner import JobRunner
from engage_core.kernel.clock import SystemClock
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.plans.model import CONTACTS, DEFAULT_PLAN, LIMIT_MAX, MESSAGES_PER_MONTH
from engage_core.plans.plan_service import PlanPatch
from engage_core.services import Services
from engage_sql import Database
from engage_sql.contacts.tables import contact_tags, contacts, list_members

BATCH = 5_000


def seed(db: Database, services: Services, account: int, count: int) -> tuple[int, int]:
    """`count` contacts in bulk (a list of half of them, a `vip` tag on every fourth): the list and
    segment ids."""
    now = SystemClock().now()
    newsletter = services.lists.create(account, "Newsletter").id
    vip = services.tags.create(account, "vip").id
    segment = services.segments.create(
        account, "VIP", conditions=({"field": "tag", "operator": "has", "value": "vip"},)
    ).id
    with db.engine.begin() as connection:
        for start in range(0, count, BATCH):
            rows = [
                {
                    "account_id": account,
                    "name": f"Contact {n}",
                    "name_key": f"contact {n}",
                    "phone": f"+9665{n:08d}",
                    "type": "whatsapp",
                    "status": "active",
                    "blacklisted": n % 97 == 0,
                    "source": "api",
                    "company": "Acme" if n % 2 else None,
                    "created_at": now,
                    "updated_at": now,
                }
                for n in range(start, min(count, start + BATCH))
            ]
            connection.execute(insert(contacts), rows)
        first = connection.execute(
            text("SELECT min(id) FROM contacts WHERE account_id = :a"), {"a": account}
        ).scalar_one()
        ids = range(first, first + count)
        members = [{"account_id": account, "list_id": newsletter, "contact_id": i, "added_at": now} for i in ids[::2]]
        for start in range(0, len(members), BATCH):
            connection.execute(insert(list_members), members[start : start + BATCH])
        tagged = [{"account_id": account, "contact_id": i, "tag_id": vip} for i in ids[1::4]]
        for start in range(0, len(tagged), BATCH):
            connection.execute(insert(contact_tags), tagged[start : start + BATCH])
    return newsletter, segment


@attrs.define
class Drain:
    """A started campaign and the job runner that sends it, one worker, through the sandbox gateway."""

    db: Database
    services: Services
    sandbox: SandboxGateway
    provider: str
    account: int
    campaign: Campaign
    seed_seconds: float
    snapshot_seconds: float

    def sent(self) -> int:
        """Messages the sandbox has taken so far."""
        return len(self.sandbox.account(self.provider).sent)

    def run(self, *, seconds: float = float("inf"), messages: int | None = None) -> float:
        """Run the send jobs for `seconds`, or until `messages` more are sent, or until the campaign
        has ended; the seconds it ran."""
        runner = JobRunner(self.db.job_queue(), self.services.job_handlers(), SystemClock())
        target = None if messages is None else self.sent() + messages
        started = time.perf_counter()
        while time.perf_counter() - started < seconds and (target is None or self.sent() < target):
            if not runner.run_once():
                if self.services.campaigns.get(self.account, self.campaign.id).status in FINAL:
                    break
                time.sleep(0.01)
        return time.perf_counter() - started

    def close(self) -> None:
        self.db.dispose()


def start(url: str, count: int) -> Drain:
    """A new account on `url` with `count` contacts, and its campaign to the list and the segment
    started at the highest rate, quotas lifted."""
    db = Database.connect(url)
    db.upgrade()
    sandbox = SandboxGateway(SystemClock())
    services = Services.build(db.uow, gateway=sandbox, campaign_quotas=Quotas.unlimited())
    sandbox.attach(services.inbox)
    services.plans.update(DEFAULT_PLAN, PlanPatch(limits={CONTACTS: LIMIT_MAX, MESSAGES_PER_MONTH: LIMIT_MAX}))
    account = services.accounts.create("Bench").account.id
    started = time.perf_counter()
    list_id, segment_id = seed(db, services, account, count)
    seed_seconds = time.perf_counter() - started
    if db.engine.dialect.name == "postgresql":
        with db.engine.begin() as connection:
            connection.exec_driver_sql("ANALYZE")
    provider = services.channels.connect_qr(account, "whatsapp").channel.provider_account_id or ""
    sandbox.scan(provider)
    campaign = services.campaigns.create(
        account,
        CampaignInput(
            "Bench", "whatsapp", "Hi {{first_name|there}} from {{company|us}}", (), (list_id,), (segment_id,),
            send_rate=SEND_RATE_MAX,
        ),
    )  # fmt: skip
    started = time.perf_counter()
    running = services.campaigns.start(account, campaign.id)
    snapshot_seconds = time.perf_counter() - started
    return Drain(db, services, sandbox, provider, account, running, seed_seconds, snapshot_seconds)


def run(url: str, count: int, drain_seconds: float) -> dict[str, Any]:
    drain = start(url, count)
    drained = drain.run(seconds=drain_seconds)
    done = drain.services.campaigns.get(drain.account, drain.campaign.id)
    sent = drain.sent()
    drain.close()
    return {
        "engine": drain.db.engine.dialect.name,
        "contacts": count,
        "recipients": drain.campaign.counters.total,
        "skipped": drain.campaign.counters.skipped,
        "seed_seconds": round(drain.seed_seconds, 1),
        "snapshot_seconds": round(drain.snapshot_seconds, 2),
        "drain_seconds": round(drained, 1),
        "messages_sent": sent,
        "recorded_sent": done.counters.sent,
        "messages_per_second": round(sent / drained, 1),
        "of_the_rate": round(sent / drained / (SEND_RATE_MAX / 60), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--contacts", type=int, default=100_000)
    parser.add_argument("--drain-seconds", type=float, default=20.0)
    parser.add_argument("--postgres", help="a PostgreSQL server URL: a database of its own is made there")
    parser.add_argument(
        "--database-prefix", default="bench_campaigns", help="the name of that database, before a random suffix"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        print(json.dumps(run(f"sqlite:///{Path(tmp) / 'bench.db'}", args.contacts, args.drain_seconds)))
    if args.postgres:
        name = f"{args.database_prefix}_{uuid.uuid4().hex[:8]}"
        admin = create_engine(args.postgres, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
        try:
            url = args.postgres.rsplit("/", 1)[0] + "/" + name
            print(json.dumps(run(url, args.contacts, args.drain_seconds)))
        finally:
            with admin.connect() as connection:
                connection.exec_driver_sql(f'DROP DATABASE "{name}" WITH (FORCE)')
            admin.dispose()


if __name__ == "__main__":
    main()
