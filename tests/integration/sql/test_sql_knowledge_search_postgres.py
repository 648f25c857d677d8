"""Knowledge-base search on PostgreSQL against SQLite: the test corpus ranks alike on both engines,
the bounded ranking of many matches agrees with the exact one on it, and the per-account word
counts (`knowledge_base_lexemes`, migration 0022) follow the chunks.

The documented difference (docs/knowledge-base.md, Search): both engines give every question the
same scores in the same order; among hits of equal score, the order, and which of them fill the
limit, follow each engine's own rank (`bm25()` or `ts_rank_cd`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from knowledge_corpus import PASSAGES, QUESTIONS
from sqlalchemy import delete, text

from engage_core.knowledge.chunking import chunk_records, chunk_text
from engage_core.knowledge.model import KnowledgeBaseDraft
from engage_core.knowledge.search import ChunkPatch
from engage_core.services import Services
from engage_sql import Database
from engage_sql.accounts.tables import accounts
from engage_sql.knowledge import postgres_search

from .conftest import START

Ranking = list[tuple[str, float]]


@pytest.fixture
def postgres(backend: str) -> None:
    if backend != "postgres":
        pytest.skip("PostgreSQL only (it compares itself with SQLite)")


def _corpus(database: Database, account: int) -> Callable[[str], Ranking]:
    """Stores the corpus in the account; returns a search giving (passage key, score) pairs, best first."""
    keys: dict[int, str] = {}
    for key, (title, body) in PASSAGES.items():
        with database.uow.workspace(account) as uow:
            entry = uow.knowledge_base.add(KnowledgeBaseDraft(title, "text"), START)
            uow.knowledge_chunks.replace(entry.id, chunk_text(body, title=title), START)
            uow.commit()
        keys[entry.id] = key

    def search(question: str) -> Ranking:
        with database.uow.workspace(account, readonly=True) as uow:
            hits = uow.knowledge_search.search(question, limit=5)
        return [(keys[h.knowledge_base_id], h.score) for h in hits]

    return search


def _by_score(ranking: Ranking) -> list[tuple[float, frozenset[str]]]:
    """The hits grouped by score, best first; the last group may be cut by the limit, so only its score counts."""
    scores = list(dict.fromkeys(score for _, score in ranking))
    groups = [(s, frozenset(k for k, score in ranking if score == s)) for s in scores]
    return [*groups[:-1], (groups[-1][0], frozenset())] if groups else []


@pytest.fixture
def sqlite_search(tmp_path: Path) -> Iterator[Callable[[str], Ranking]]:
    database = Database.connect(f"sqlite:///{tmp_path / 'corpus.db'}")
    database.upgrade()
    account = Services.build(database.uow).accounts.create("Corpus").account.id
    yield _corpus(database, account)
    database.dispose()


def test_both_engines_rank_the_corpus_alike(
    postgres: None, database: Database, account: int, sqlite_search: Callable[[str], Ranking]
) -> None:
    """Every corpus question gets the same scores, in order, and the same hits for each score but the lowest."""
    postgres_search_ = _corpus(database, account)

    differ = {
        question: (sqlite_search(question), postgres_search_(question))
        for question, _ in QUESTIONS
        if _by_score(sqlite_search(question)) != _by_score(postgres_search_(question))
    }

    assert differ == {}


def test_bounded_ranking_agrees_with_ranking_every_match(
    postgres: None, database: Database, account: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Forced onto the cheap-score path, the corpus questions get the same hits in the same order."""
    search = _corpus(database, account)
    exact = {question: search(question) for question, _ in QUESTIONS}

    monkeypatch.setattr(postgres_search, "EXACT_MATCHES", -1)

    assert {question: search(question) for question, _ in QUESTIONS} == exact


def test_prefixes_searched_as_their_words_agree_with_the_prefixes(
    postgres: None, database: Database, account: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Prefix terms rewritten as the account's words they match give every corpus question the same hits."""
    search = _corpus(database, account)
    expanded = {question: search(question) for question, _ in QUESTIONS}

    monkeypatch.setattr(postgres_search, "EXPANDED_WORDS", 0)

    assert {question: search(question) for question, _ in QUESTIONS} == expanded


def test_a_prefix_matching_a_compound_word_stays_a_prefix(postgres: None, database: Database, account: int) -> None:
    """A term matching a compound word ("check-in", kept a prefix) finds its chunk."""
    with database.uow.workspace(account) as uow:
        entry = uow.knowledge_base.add(KnowledgeBaseDraft("Hotel", "text"), START).id
        uow.knowledge_chunks.replace(entry, chunk_records(["Early check-in from noon"]), START)
        uow.commit()

    with database.uow.workspace(account, readonly=True) as uow:
        hits = uow.knowledge_search.search("checks", limit=5)

    assert [h.knowledge_base_id for h in hits] == [entry]


def _counts(database: Database, account: int) -> dict[str, int]:
    with database.engine.connect() as connection:
        rows = connection.execute(
            text("SELECT lexeme, chunks FROM knowledge_base_lexemes WHERE account_id = :a AND chunks <> 0"),
            {"a": account},
        )
        return {row.lexeme: row.chunks for row in rows}


def _recount(database: Database, account: int) -> dict[str, int]:
    """The counts computed afresh from the chunks' vectors."""
    with database.engine.connect() as connection:
        rows = connection.execute(
            text(
                "SELECT w.lexeme, count(*) AS chunks FROM knowledge_base_chunks AS c, unnest(c.search_vector) AS w "
                "WHERE c.account_id = :a GROUP BY w.lexeme"
            ),
            {"a": account},
        )
        return {row.lexeme: row.chunks for row in rows}


def test_word_counts_follow_inserts_updates_and_deletes(postgres: None, database: Database, account: int) -> None:
    """Each word counts the account's chunks holding it, through replace, edit and delete."""
    with database.uow.workspace(account) as uow:
        entry = uow.knowledge_base.add(KnowledgeBaseDraft("Menu", "text"), START).id
        chunks = uow.knowledge_chunks.replace(entry, chunk_records(["matcha latte", "hibiscus latte"]), START)
        uow.knowledge_chunks.update(chunks[0].id, ChunkPatch(content="matcha tea"), START)
        uow.knowledge_chunks.delete(chunks[1].id)
        uow.commit()

    assert _counts(database, account) == _recount(database, account)
    assert {"matcha": 1, "tea": 1}.items() <= _counts(database, account).items()


def test_word_counts_go_with_the_account(
    postgres: None, database: Database, account: int, make_account: Callable[..., int]
) -> None:
    """Deleting an account removes its counts and leaves another account's."""
    other = make_account("Other")
    for owner in (account, other):
        with database.uow.workspace(owner) as uow:
            entry = uow.knowledge_base.add(KnowledgeBaseDraft("Menu", "text"), START).id
            uow.knowledge_chunks.replace(entry, chunk_records(["saffron latte"]), START)
            uow.commit()
    with database.engine.begin() as connection:
        connection.execute(delete(accounts).where(accounts.c.id == account))

    assert (_counts(database, account), _counts(database, other)) == ({}, {"saffron": 1, "latte": 1})
