"""Running one piece of work in many threads at once (the race tests of plans and partners)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
DEADLINE_SECONDS = 120.0


def at_once(threads: int, work: Callable[[int], T]) -> list[T | BaseException]:
    """Run `work(n)` for n in range(threads), all released together; each result or exception."""
    start = threading.Barrier(threads)

    def run(n: int) -> T:
        start.wait(timeout=30)
        return work(n)

    with ThreadPoolExecutor(threads) as pool:
        futures = [pool.submit(run, n) for n in range(threads)]
        return [future.exception(timeout=DEADLINE_SECONDS) or future.result() for future in futures]


def outcome(result: object) -> str:
    """`ok`, or the error's type and, for errors that carry one, its `code`."""
    if isinstance(result, BaseException):
        code = getattr(result, "code", None)
        return type(result).__name__ + (f" {code}" if code else "")
    return "ok"
