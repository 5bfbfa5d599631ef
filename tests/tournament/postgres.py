"""A throwaway PostgreSQL server for the store tests (issue 12 item 4).

``initdb`` and ``pg_ctl`` (from PATH or ``/usr/lib/postgresql/*/bin``) make a cluster in a
temporary folder and start it listening ONLY on a unix socket in that folder
(``listen_addresses=''``): no TCP port, nothing reachable from outside. initdb refuses
to run as root, so as root the cluster and the server run as ``nobody`` (``setpriv``),
the folder chowned to it; the tests, as root, still reach the socket. One server per
test session; ``pg_ctl stop`` stops it at the end through the cluster's own pid file.
Each test gets a database of its own (:meth:`PostgresServer.new_database`).
"""

from __future__ import annotations

import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

USER = "arena"
"""The cluster's superuser (trust authentication over the folder's socket only)."""


def find_binaries() -> Path | None:
    """The folder with ``initdb`` and ``pg_ctl``, or None when PostgreSQL is not installed."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(os.path.realpath(found)).parent
    for folder in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    return None


def _as_server_user() -> list[str]:
    """The command prefix that runs initdb and the server: ``nobody`` when we are root."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        raise RuntimeError("running as root and util-linux setpriv is missing: cannot run initdb")
    return [setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups"]


@dataclass
class PostgresServer:
    """A running cluster: its folder (socket, data, log) and the binaries that run it."""

    folder: Path
    bindir: Path
    _names: Iterator[int] = field(default_factory=itertools.count)

    @property
    def data(self) -> Path:
        return self.folder / "data"

    def url(self, database: str = "postgres") -> str:
        """A URL for ``database`` through the folder's unix socket."""
        return f"postgresql://{USER}@/{database}?host={self.folder}"

    def new_database(self) -> str:
        """Create an empty database; returns its URL."""
        import psycopg

        name = f"t{os.getpid()}_{next(self._names)}"
        with psycopg.connect(self.url(), autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def pg_ctl(self, *arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*_as_server_user(), str(self.bindir / "pg_ctl"), "-D", str(self.data), *arguments],
            capture_output=True,
            text=True,
            cwd=self.folder,
            timeout=120,
            check=False,
        )


def start(bindir: Path) -> PostgresServer:
    """initdb into a new temporary folder and start the server on its socket."""
    folder = Path(tempfile.mkdtemp(prefix="arena-pg-"))
    server = PostgresServer(folder=folder, bindir=bindir)
    if os.geteuid() == 0:
        nobody = pwd.getpwnam("nobody")
        os.chown(folder, nobody.pw_uid, nobody.pw_gid)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C"}
    initdb = subprocess.run(
        [
            *_as_server_user(),
            str(bindir / "initdb"),
            "-D",
            str(server.data),
            "-U",
            USER,
            "--auth=trust",
            "--no-sync",
            "--no-locale",
            "-E",
            "UTF8",
        ],
        capture_output=True,
        text=True,
        cwd=folder,
        env=env,
        timeout=300,
        check=False,
    )
    if initdb.returncode != 0:
        raise RuntimeError(f"initdb failed: {initdb.stderr.strip()[-2000:]}")
    options = f"-c listen_addresses='' -k {folder} -c fsync=off -c max_connections=50"
    started = server.pg_ctl("-l", str(folder / "server.log"), "-o", options, "-w", "start")
    if started.returncode != 0:
        log = (folder / "server.log").read_text(errors="replace")[-2000:]
        raise RuntimeError(f"pg_ctl start failed: {started.stderr.strip()} {log}")
    return server


def stop(server: PostgresServer) -> None:
    """Stop the server (pg_ctl reads the pid from the cluster's postmaster.pid), then
    remove its folder."""
    server.pg_ctl("-m", "fast", "-w", "stop")
    shutil.rmtree(server.folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """One PostgreSQL server for the whole run; skipped only when PostgreSQL is not installed."""
    bindir = find_binaries()
    if bindir is None:
        pytest.skip(
            "issue 12 item 4: no PostgreSQL binaries (initdb, pg_ctl) on PATH or in "
            "/usr/lib/postgresql/*/bin: apt-get install postgresql"
        )
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.fail("PostgreSQL is installed but psycopg is not: pip install -e '.[postgres]'")
    server = start(bindir)
    try:
        yield server
    finally:
        stop(server)


@pytest.fixture(params=["sqlite", "postgresql"])
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where a test's store lives: a SQLite file, then a fresh PostgreSQL database."""
    if request.param == "sqlite":
        return str(tmp_path / "arena.db")
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return server.new_database()
