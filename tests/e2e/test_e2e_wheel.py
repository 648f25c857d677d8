"""The built wheel: its name on the index, everything the source tree ships, and a command that works
from an installation that is not the source tree."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from engage_core import DISTRIBUTION_NAME

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("engage", "engage_core", "engage_sql", "engage_connectors", "engage_http", "engage_cli", "engage_testing")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel built from a copy of the tracked files, as `pip wheel .` builds it on a clean clone."""
    source = tmp_path_factory.mktemp("source")
    for path in ("pyproject.toml", "README.md", *shipped_sources()):
        (source / path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / path, source / path)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(out),
            str(ROOT),
        ],
        check=True,
        cwd=out,
    )
    (built,) = out.glob("*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel installed into a directory of its own (dependencies come from the running environment)."""
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(wheel)],
        check=True,
    )
    return target


def shipped_sources() -> Iterator[str]:
    """Every file git tracks in the import packages, as a path inside the wheel."""
    listing = subprocess.run(["git", "ls-files", *PACKAGES], cwd=ROOT, capture_output=True, text=True, check=True)
    yield from listing.stdout.split()


def test_wheel_is_named_for_the_index(wheel: Path) -> None:
    """The wheel's distribution name is the free name on the package index, not `engage`."""
    assert wheel.name.startswith(DISTRIBUTION_NAME.replace("-", "_") + "-")


def test_wheel_holds_every_tracked_file_of_the_packages(wheel: Path) -> None:
    """Modules, migrations, their template and the `py.typed` markers all reach the wheel."""
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(path for path in shipped_sources() if path not in names)
    assert missing == []


def test_wheel_declares_the_engage_command(wheel: Path) -> None:
    """The entry points give the `engage` command, whatever the distribution is called."""
    archive = zipfile.ZipFile(wheel)
    (entry_points,) = [name for name in archive.namelist() if name.endswith(".dist-info/entry_points.txt")]
    assert "engage = engage_cli.main:main" in archive.read(entry_points).decode()


def test_installed_command_migrates_a_database_from_the_wheel(installed: Path, tmp_path: Path) -> None:
    """The installed `engage` command, importing only the installed copy, applies the packaged migrations."""
    env = {**os.environ, "PYTHONPATH": str(installed)}
    database = tmp_path / "wheel.db"
    command = [str(installed / "bin" / "engage"), "--database-url", f"sqlite:///{database}", "db", "upgrade"]
    subprocess.run(command, check=True, cwd=tmp_path, env=env, capture_output=True)
    where = subprocess.run(
        [sys.executable, "-c", "import engage_sql; print(engage_sql.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(where.stdout.strip()).is_relative_to(installed)
    with closing(sqlite3.connect(database)) as connection:
        (revision,) = connection.execute("SELECT version_num FROM alembic_version").fetchone()
    assert revision
