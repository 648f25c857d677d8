"""`bench/driver.py` keeps running as the statements it measures change."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def test_every_way_of_every_statement_runs(sqlite: None) -> None:
    """A short run, as its docs run it, reports CPU per execution for each statement and each way."""
    run = subprocess.run(
        [sys.executable, "-m", "bench.driver", "--executions", "20", "--rounds", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert run.returncode == 0, run.stderr
    assert len([line for line in run.stdout.splitlines() if "us CPU per execution" in line]) == 6
