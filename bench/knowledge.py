"""Benchmark: knowledge-base indexing throughput and search latency, next to a plain `LIKE` scan.

    .venv/bin/python -m bench.knowledge [--database-url postgresql://...] [--passages 10000]
        [--chunks 100000] [--queries 300] [--search-only]

On the database named by `--database-url` (a temporary SQLite file by default; a PostgreSQL
database must be empty or freshly created), one account:

1. Ingest: `--passages` passages of about 1,000 characters, each a text entry of its own, each cut
   by `chunk_text` and stored by `knowledge_chunks.replace` in a unit of work of its own (chunking,
   the insert and the full-text index update together). Prints passages and chunks per second.
2. Grow: more entries of ten chunks each, in bulk (through the same repository), up to `--chunks`.
3. Search: `--queries` questions through `uow.knowledge_search.search(limit=5)` (a read-only unit of
   work each, as a caller would open), then the same questions as a plain scan,
   `content LIKE '%term%' OR ...` of the account's chunks, `LIMIT 50` (the candidates the index hands
   over). Prints p50 and p99 of each, in milliseconds. `--search-only` runs this step alone on a
   database an earlier run filled (to compare search code on the same data).

The text is synthetic and reproducible (seeded): words drawn from a 30,000-word vocabulary with a
Zipf distribution (exponent 1), so a few words are in most chunks, as in real text. Questions are
four words drawn the same way from outside the 100 commonest (in a real question those would be stop
words, which search drops): typically one word found in ~10% of the chunks and rarer ones.
"""

from __future__ import annotations

import argparse
import bisect
import itertools
import json
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import text

from engage_core.kernel.clock import SystemClock
from engage_core.knowledge.chunking import ChunkDraft, chunk_text
from engage_core.knowledge.model import KnowledgeBaseDraft
from engage_core.knowledge.terms import query_terms
from engage_core.services import Services
from engage_sql import Database

VOCABULARY = 30_000
COMMON = 100
SEED = 20_261_127


class Words:
    """Pseudo-words with Zipf frequencies, reproducible from the seed."""

    def __init__(self, rng: random.Random) -> None:
        letters = "abcdefghijklmnopqrstuvwxyz"
        seen: set[str] = set()
        while len(seen) < VOCABULARY:
            seen.add("".join(rng.choice(letters) for _ in range(rng.randint(4, 10))))
        self.words = sorted(seen)
        rng.shuffle(self.words)
        self._cumulative = list(itertools.accumulate(1 / rank for rank in range(1, VOCABULARY + 1)))
        self._rng = rng

    def draw(self, n: int, *, skip: int = 0) -> list[str]:
        low = self._cumulative[skip - 1] if skip else 0.0
        high = self._cumulative[-1]
        return [self.words[bisect.bisect_left(self._cumulative, self._rng.uniform(low, high))] for _ in range(n)]

    def reseed(self, seed: int) -> None:
        """Draw from now on from a stream of `seed` (the vocabulary stays)."""
        self._rng.seed(seed)

    def passage(self, characters: int = 1000) -> str:
        sentences: list[str] = []
        length = 0
        while length < characters:
            sentence = " ".join(self.draw(self._rng.randint(6, 16))).capitalize() + "."
            sentences.append(sentence)
            length += len(sentence) + 1
        return " ".join(sentences)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def timed(calls: list[Callable[[], object]]) -> list[float]:
    durations = []
    for call in calls:
        started = time.perf_counter()
        call()
        durations.append((time.perf_counter() - started) * 1000)
    return durations


def run(url: str, passages: int, chunks: int, queries: int, *, search_only: bool = False) -> dict[str, object]:
    words = Words(random.Random(SEED))
    db = Database.connect(url)
    db.upgrade()
    if search_only:
        return measure_search(db, words, queries)
    account = Services.build(db.uow).accounts.create("Bench").account.id
    clock = SystemClock()

    started = time.perf_counter()
    stored = 0
    for n in range(passages):
        title = f"Passage {n}"
        with db.uow.workspace(account) as uow:
            entry = uow.knowledge_base.add(KnowledgeBaseDraft(title, "text"), clock.now())
            stored += len(uow.knowledge_chunks.replace(entry.id, chunk_text(words.passage(), title=title), clock.now()))
            uow.commit()
    ingest_seconds = time.perf_counter() - started
    ingested = stored

    started = time.perf_counter()
    stored = grow(db, account, words, stored, chunks)
    grow_seconds = time.perf_counter() - started
    return {
        "ingest_passages": passages,
        "ingest_seconds": round(ingest_seconds, 1),
        "passages_per_second": round(passages / ingest_seconds),
        "ingest_chunks": ingested,
        "chunks_per_second_ingest": round(ingested / ingest_seconds),
        "bulk_chunks_per_second": round((stored - ingested) / grow_seconds) if grow_seconds else None,
    } | measure_search(db, words, queries)


def grow(db: Database, account: int, words: Words, stored: int, chunks: int) -> int:
    """Step 2: entries of ten chunks each, a hundred entries a unit of work, from `stored` chunks up
    to `chunks`; the chunks stored then."""
    clock = SystemClock()
    while stored < chunks:
        with db.uow.workspace(account) as uow:
            for _ in range(100):
                if stored >= chunks:
                    break
                entry = uow.knowledge_base.add(KnowledgeBaseDraft("Bulk", "text"), clock.now())
                drafts = [ChunkDraft(words.passage(900), i, 10, "Bulk", ()) for i in range(10)]
                stored += len(uow.knowledge_chunks.replace(entry.id, drafts, clock.now()))
            uow.commit()
    return stored


def fill(db: Database, account: int, words: Words, chunks: int) -> None:
    """`chunks` chunks in bulk (`grow`), and PostgreSQL's statistics brought up to date."""
    grow(db, account, words, 0, chunks)
    if db.engine.dialect.name == "postgresql":
        with db.engine.begin() as connection:
            connection.exec_driver_sql("ANALYZE")


def questions(words: Words, queries: int) -> list[str]:
    """The questions of step 3: the same ones whatever was drawn before."""
    words.reseed(SEED + 1)
    return [" ".join(words.draw(4, skip=COMMON)) for _ in range(queries)]


def measure_search(db: Database, words: Words, queries: int) -> dict[str, object]:
    """Step 3 on the filled database (its first account): search latency next to the `LIKE` scan."""
    if db.engine.dialect.name == "postgresql":
        with db.engine.begin() as connection:
            connection.exec_driver_sql("ANALYZE")
    with db.engine.connect() as connection:
        account = connection.execute(text("SELECT min(id) FROM accounts")).scalar_one()
        stored = connection.execute(text("SELECT count(*) FROM knowledge_base_chunks")).scalar_one()
    asked = questions(words, queries)  # the same whether the database was just filled or not

    def search(question: str) -> Callable[[], object]:
        def call() -> object:
            with db.uow.workspace(account, readonly=True) as uow:
                return uow.knowledge_search.search(question, limit=5)

        return call

    def like(question: str) -> Callable[[], object]:
        terms = query_terms(question)
        where = " OR ".join(f"content LIKE :t{i}" for i in range(len(terms)))
        sql = text(f"SELECT id, content FROM knowledge_base_chunks WHERE account_id = :a AND ({where}) LIMIT 50")
        params = {"a": account} | {f"t{i}": f"%{t}%" for i, t in enumerate(terms)}

        def call() -> object:
            with db.engine.connect() as connection:
                return connection.execute(sql, params).all()

        return call

    timed([search(q) for q in asked[:20]])  # warm the caches
    found = [len(search(q)()) for q in asked]  # type: ignore[arg-type]
    search_ms = timed([search(q) for q in asked])
    like_ms = timed([like(q) for q in asked])
    db.dispose()
    return {
        "database": db.engine.dialect.name,
        "chunks": stored,
        "queries": queries,
        "mean_hits": round(statistics.fmean(found), 2),
        "search_ms_p50": round(percentile(search_ms, 0.5), 2),
        "search_ms_p99": round(percentile(search_ms, 0.99), 2),
        "like_ms_p50": round(percentile(like_ms, 0.5), 2),
        "like_ms_p99": round(percentile(like_ms, 0.99), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", help="the database to fill (default: a temporary SQLite file)")
    parser.add_argument("--passages", type=int, default=10_000)
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument(
        "--search-only", action="store_true", help="only step 3, on a database an earlier run filled (--database-url)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = args.database_url or f"sqlite:///{Path(tmp) / 'bench.db'}"
        print(json.dumps(run(url, args.passages, args.chunks, args.queries, search_only=args.search_only)))


if __name__ == "__main__":
    main()
