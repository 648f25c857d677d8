"""Benchmark: automatic replies with the offline engine, at 10,000 knowledge-base chunks.

    .venv/bin/python -m bench.agents [--database-url postgresql://...] [--chunks 10000]
        [--messages 300] [--latency-messages 100] [--idle 0.5] [--steps]

On the database named by `--database-url` (a temporary SQLite file by default; a PostgreSQL database
must be empty or freshly created), one account with a default agent, a WhatsApp connected through
the sandbox gateway and `--chunks` chunks of synthetic text (`bench.knowledge`'s words):

1. Throughput: `--messages` customers (one message each, a question of four words of the corpus)
   write through the sandbox; each inbound message is stored and its `ai_agent.reply` job queued.
   Then one job runner (as `engage serve` runs one) drains the queue: replies per second, each job
   being the checks, the history, the offline engine's turn (a knowledge-base search) and the send.
2. Latency: the runner runs in its own thread, waiting `--idle` seconds when no job is due (the
   in-process worker's default, 0.5 s); customers write one at a time, the next once the previous
   one's reply is recorded. Reported: p50 and p99 from the inbound message stored (its
   `created_at`) to the reply sent (the outbound message's `sent_at`), both from the clock of the
   process, so mostly the runner's idle wait plus one job.

`--steps` gives the agent memory and booking instructions (and the workspace a booking type), and
each message also states a preference ("I prefer <word>."): every job then runs the memory step
(reading the contact's facts, the offline extraction, storing one fact) and the booking step's
check before the engine. Run with and without it to compare.
"""

from __future__ import annotations

import argparse
import json
import random
import tempfile
import threading
import time
from pathlib import Path

import attrs

from bench.knowledge import COMMON, SEED, Words, fill, percentile
from engage_connectors.llm import OfflineLanguageModel
from engage_core.agents.model import AgentInput
from engage_core.bookings.setup import BookingTypeInput
from engage_core.jobs.runner import JobRunner
from engage_core.kernel.clock import SystemClock
from engage_core.messaging.messages import Message
from engage_core.messaging.sandbox import SandboxGateway
from engage_core.services import Services
from engage_sql import Database


def run(url: str, chunks: int, messages: int, latency_messages: int, idle: float, steps: bool) -> dict[str, object]:
    rng = random.Random(SEED)
    words = Words(rng)
    db = Database.connect(url)
    db.upgrade()
    clock = SystemClock()
    sandbox = SandboxGateway(clock)
    services = Services.build(db.uow, clock, gateway=sandbox, language_model=OfflineLanguageModel())
    sandbox.attach(services.inbox)
    account = services.accounts.create("Bench").account.id
    agent = AgentInput(name="Concierge", system_prompt="Be brief.", is_default=True)
    if steps:
        agent = attrs.evolve(agent, memory_agent_instructions="Remember.", booking_agent_instructions="Book.")
        services.booking_setup.create_type(account, BookingTypeInput("Consultation", 30))
    services.ai_agents.create(account, agent)
    whatsapp = services.channels.connect_qr(account, "whatsapp").channel.provider_account_id or ""
    sandbox.scan(whatsapp)
    fill(db, account, words, chunks)
    phones = (f"+9665{n:08d}" for n in range(1, 10_000_000))

    def write() -> Message:
        question = " ".join(words.draw(4, skip=COMMON)) + "?"
        if steps:
            question = f"I prefer {words.draw(1, skip=COMMON)[0]}. {question}"
        sent = sandbox.inject_message(whatsapp, next(phones), question)
        with db.uow.workspace(account, readonly=True) as uow:
            stored = uow.messages.by_provider_id("whatsapp", sent.provider_message_id)
        assert stored is not None
        return stored

    def replied(message: Message) -> Message | None:
        with db.uow.workspace(account, readonly=True) as uow:
            reply = uow.ai_replies.by_inbound(message.id)
            return None if reply is None else uow.messages.get(reply.outbound_message_id)

    # 1. throughput: queue everything, then drain with one runner
    runner = JobRunner(db.job_queue(), services.job_handlers(), clock)
    inbound = [write() for _ in range(messages)]
    started = time.perf_counter()
    while runner.run_once():
        pass
    drain_seconds = time.perf_counter() - started
    answers = [replied(m) for m in inbound]
    sent = [a for a in answers if a is not None and a.status == "sent"]

    # 2. latency: a runner thread as the server runs it, one customer at a time
    stop = threading.Event()
    worker = threading.Thread(target=runner.run_until, args=(stop,), kwargs={"idle_seconds": idle}, daemon=True)
    worker.start()
    latencies: list[float] = []
    for _ in range(latency_messages):
        message = write()
        while (answer := replied(message)) is None or answer.sent_at is None:
            time.sleep(0.002)
        latencies.append((answer.sent_at - message.created_at).total_seconds() * 1000)
    stop.set()
    worker.join()
    db.dispose()
    return {
        "database": db.engine.dialect.name,
        "steps": steps,
        "chunks": chunks,
        "messages": messages,
        "replies_sent": len(sent),
        "replies_per_second": round(messages / drain_seconds, 1),
        "job_ms_mean": round(drain_seconds / messages * 1000, 2),
        "idle_seconds": idle,
        "latency_messages": latency_messages,
        "latency_ms_p50": round(percentile(latencies, 0.5), 1),
        "latency_ms_p99": round(percentile(latencies, 0.99), 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="the database to fill (default: a temporary SQLite file)")
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--messages", type=int, default=300)
    parser.add_argument("--latency-messages", type=int, default=100)
    parser.add_argument("--idle", type=float, default=0.5, help="the runner's wait when no job is due")
    parser.add_argument("--steps", action="store_true", help="memory and booking instructions on the agent")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'bench.db'}"
        print(json.dumps(run(url, args.chunks, args.messages, args.latency_messages, args.idle, args.steps)))


if __name__ == "__main__":
    main()
