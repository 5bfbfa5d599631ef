"""PostgreSQL for a shared league (issue 12 item 4): what only a server database has.

The shared store tests (``test_store.py``) run on both databases; these cover opening a
PostgreSQL database (its schema and mark, someone else's database, a newer schema, a
missing psycopg, a password never shown), the advisory lock that keeps a second
coordinator out, a tournament file and the CLI taking a URL, and one whole tournament
played on PostgreSQL giving the standings it gives on SQLite for the same seed.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
import trio
from click.testing import CliRunner
from flags import flag_limits
from postgres import PostgresServer, postgres_server  # noqa: F401 (fixture)
from test_runner import write_tournament

import arena
from arena.cli import cli
from arena.cli._app import _register
from arena.store._db import redact, scrub
from arena.store._lock import InUseError, hold_tournament
from arena.store._schema import POSTGRES_MARK, SCHEMA_VERSION
from arena.tournament import (
    NOT_STARTED,
    Store,
    StoreError,
    compute_standings,
    load_tournament,
    run_tournament,
)

_register()

REPO = Path(arena.__file__).resolve().parents[1]
BROKEN = Path(__file__).resolve().parent / "bots" / "broken_until.py"


@pytest.fixture
def url(postgres_server: PostgresServer) -> str:  # noqa: F811
    return postgres_server.new_database()


def raw(url: str) -> object:
    """A plain psycopg connection (autocommit) to ``url``."""
    import psycopg

    return psycopg.connect(url, autocommit=True)


class TestOpen:
    def test_creates_the_schema_in_postgres_types_and_marks_it(self, url: str) -> None:
        """The same tables, 64-bit identity keys, doubles for ratings, our mark, one version."""
        Store.open(url).close()
        with raw(url) as db:  # type: ignore[attr-defined]
            tables = {
                row[0]
                for row in db.execute(
                    "SELECT table_name FROM information_schema.tables "
                    "WHERE table_schema = current_schema()"
                )
            }
            assert {
                "schema_version",
                "bots",
                "tournaments",
                "scheduled_matches",
                "matches",
                "seat_results",
                "faults",
                "ratings",
                "deal_keys",
            } == tables
            columns = dict(
                ((table, column), (kind, identity))
                for table, column, kind, identity in db.execute(
                    "SELECT table_name, column_name, data_type, is_identity "
                    "FROM information_schema.columns WHERE table_schema = current_schema()"
                )
            )
            assert ("bigint", "YES") == columns["matches", "id"]
            assert ("bigint", "NO") == columns["scheduled_matches", "seed"]
            assert "double precision" == columns["ratings", "rating_after"][0]
            assert [(SCHEMA_VERSION,)] == db.execute(
                "SELECT version FROM schema_version"
            ).fetchall()
            mark = db.execute("SELECT obj_description('schema_version'::regclass)").fetchone()
            assert (POSTGRES_MARK,) == mark
        with Store.open(url) as store:  # reopened: no second version row
            assert 1 == store._db.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0]

    def test_someone_elses_database_is_refused_and_left_alone(self, url: str) -> None:
        """A database with other tables is not written into."""
        with raw(url) as db:  # type: ignore[attr-defined]
            db.execute("CREATE TABLE customers (id INTEGER)")
        with pytest.raises(StoreError, match="not an arena database"):
            Store.open(url)
        with raw(url) as db:  # type: ignore[attr-defined]
            names = db.execute(
                "SELECT table_name FROM information_schema.tables "
                "WHERE table_schema = current_schema()"
            ).fetchall()
        assert [("customers",)] == names

    def test_newer_schema_is_refused(self, url: str) -> None:
        """A database from a newer arena says so instead of being misread."""
        Store.open(url).close()
        with raw(url) as db:  # type: ignore[attr-defined]
            db.execute("UPDATE schema_version SET version = %s", (SCHEMA_VERSION + 1,))
        with pytest.raises(StoreError, match="newer arena"):
            Store.open(url)

    def test_resume_and_ratings_never_create_the_tables(self, url: str) -> None:
        """``create=False`` on an empty database is one line, and leaves it empty."""
        with pytest.raises(StoreError, match="no arena database there"):
            Store.open(url, create=False)
        with raw(url) as db:  # type: ignore[attr-defined]
            count = db.execute(
                "SELECT COUNT(*) FROM information_schema.tables "
                "WHERE table_schema = current_schema()"
            ).fetchone()
        assert (0,) == count

    def test_an_unreachable_database_is_named_without_its_password(
        self,
        postgres_server: PostgresServer,  # noqa: F811
    ) -> None:
        """No such database: one line naming the URL, the password (both forms) left out."""
        folder = postgres_server.folder
        for given in (
            f"postgresql://arena:s3cret-pw@/no_such_db?host={folder}",
            f"postgresql://arena@/no_such_db?host={folder}&password=s3cret-pw",
        ):
            with pytest.raises(StoreError) as info:
                Store.open(given)
            message = str(info.value)
            assert "s3cret-pw" not in message
            assert message.startswith("postgresql://arena@/no_such_db?host=")
            assert "no_such_db" in message.split(": ", 1)[1]  # the server's reason
            assert "\n" not in message


def test_redact_drops_only_the_password() -> None:
    """The shown name is rebuilt from user, host, port and database, as libpq reads them;
    every other parameter is left out (one may be a secret) (issue 12 item 4)."""
    assert "postgresql://league@db.example:5433/spring" == redact(
        "postgresql://league:p%40ss@db.example:5433/spring?sslmode=require&password=x"
    )
    assert "postgresql://db.example/spring" == redact("postgresql://:pw@db.example/spring")
    assert "postgres:///spring?host=/run/pg" == redact("postgres:///spring?host=/run/pg")
    assert "postgresql://[::1]:5432/d" == redact("postgresql://[::1]:5432/d?password=x")
    # libpq refuses the parameter "a": shown cautiously, without any parameter
    assert "postgresql://u@h/d" == redact("postgresql://u@h/d?a=1&password=x&b=2")
    # libpq reads host "u", port "pa": in doubt, everything before the last @ is hidden
    assert "postgresql://u@h/d" == redact("postgresql://u:pa/ss@h/d")
    assert "/data/arena.db" == redact("/data/arena.db")


def test_redact_without_psycopg_is_cautious(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without psycopg (a tournament file is read before anything connects) the name keeps
    no parameter and nothing before the last ``@`` but the user (issue 12 item 4)."""
    monkeypatch.setitem(sys.modules, "psycopg.conninfo", None)
    assert "postgresql://arena@127.0.0.1/league" == redact(
        "postgresql://arena:se#cr@t?1@127.0.0.1/league?pass%77ord=x"
    )
    assert "postgresql:///spring" == redact("postgresql:///spring?host=/run/pg&password=x")
    secret = "p@ss/w?rd"
    url = f"postgresql://arena:{secret}@db/league"
    assert secret not in scrub(f"cannot connect to {url}: bad password {secret}", url)


def test_a_malformed_url_is_refused_without_echoing_its_password() -> None:
    """libpq quotes a URL it cannot parse back in its message: the password is scrubbed."""
    for given in (
        "postgresql://arena:s3cret-pw@[::1/league",
        "postgresql://a@[::1/x?password=s3cret-pw",
    ):
        with pytest.raises(StoreError) as info:
            Store.open(given)
        assert "s3cret-pw" not in str(info.value)
        assert "cannot connect" in str(info.value)


def test_missing_psycopg_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without psycopg a URL is refused with the extra to install; SQLite never needs it."""
    monkeypatch.setitem(sys.modules, "psycopg", None)  # import psycopg now fails
    with pytest.raises(StoreError) as info:
        Store.open("postgresql://arena:pw@/league?host=/nonexistent")
    assert "postgresql://arena@/league?host=/nonexistent: " in str(info.value)
    assert "pip install 'arena[postgres]'" in str(info.value)
    assert "pw@" not in str(info.value)


# --- the advisory lock ------------------------------------------------------------------

HOLDER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from arena.tournament import Store
    from arena.store._lock import hold_tournament

    store = Store.open(sys.argv[1])
    with hold_tournament("league", store.path, Path(sys.argv[2])):
        print("held", flush=True)
        time.sleep(600)
    """
)


def test_a_second_coordinator_is_refused_until_the_first_dies(url: str, tmp_path: Path) -> None:
    """Another process (another machine) holds tournament "league": this one is refused with
    its pid; another tournament is not; SIGKILL of the holder frees the lock."""
    store = Store.open(url)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, url, str(tmp_path / "theirs")],
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
    )
    try:
        assert holder.stdout is not None
        assert "held" == holder.stdout.readline().strip()
        with (
            pytest.raises(InUseError) as info,
            hold_tournament("league", store.path, tmp_path / "ours"),
        ):
            pass
        message = str(info.value)
        assert f"tournament 'league' of {store.path} is in use" in message
        assert f"pid {holder.pid}" in message
        with hold_tournament("another", store.path, tmp_path / "another"):
            pass  # one lock per tournament, not per database
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=60)
        if holder.stdout is not None:
            holder.stdout.close()
    deadline = time.monotonic() + 30  # the server ends the dead session's lock
    while True:
        try:
            with hold_tournament("league", store.path, tmp_path / "ours"):
                break
        except InUseError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)
    store.close()


# --- a tournament file, the CLI, and a whole tournament ---------------------------------

TOURNAMENT = """
[tournament]
name = "{name}"
format = "round_robin"
hands_per_match = 40
duplicate = true
concurrency = 2
seed = 11
output = "runs"
database = "{database}"

[game]
structure = "fixed_limit"
big_blind = 2

[ratings]
anchor = "random"
anchor_rating = 1000

[[bots]]
name = "random"
builtin = "random"

[[bots]]
name = "calling-station"
builtin = "calling-station"

[[bots]]
name = "rule-based"
builtin = "rule-based"
"""


def test_a_tournament_file_takes_a_url_and_stores_it_without_the_password(
    tmp_path: Path,
) -> None:
    """``database = "postgresql://..."`` stays a URL (not a path), no bot is hidden a file
    for it, and the copy of the settings stored with the tournament has no password."""
    given = "postgresql://league:s3cret@/spring?host=/run/pg"
    path = tmp_path / "t.toml"
    path.write_text(TOURNAMENT.format(name="t", database=given))
    config = load_tournament(path)
    assert given == config.database
    assert "postgresql://league@/spring?host=/run/pg" == config.database_name
    assert "s3cret" not in config.to_json()
    assert (config.output,) == tuple(config.driver_context().options["hidden_paths"])


def _play(folder: Path, database: str) -> tuple[list[object], list[object], float]:
    """Run the 3-bot round robin into ``database``: (matches, standings rows, seconds).

    Built-in bots whose play the seed fixes (the monte-carlo policy draws from an unseeded
    generator, so two runs of it differ on any store)."""
    folder.mkdir()
    path = folder / "league.toml"
    path.write_text(TOURNAMENT.format(name="league", database=database))
    config = load_tournament(path)
    with Store.open(config.database) as store:
        started = time.perf_counter()
        progress = trio.run(lambda: run_tournament(config, store))
        seconds = time.perf_counter() - started
        assert (3, 3) == (progress.done, progress.total)
        matches = [
            (row.key, row.hands_played, [(s.bot, s.chips, s.unit_chips) for s in row.seats])
            for row in store.match_rows(tournament="league")
        ]
        standings = compute_standings(store, "fixed_limit", anchor="random", anchor_rating=1000)
        rows = [
            (row.bot, round(row.fit.elo, 9), round(row.elo, 9), row.matches, row.hands)
            for row in standings.rows
        ]
    return matches, rows, seconds


def test_a_tournament_on_postgres_gives_the_standings_it_gives_on_sqlite(
    url: str,
    tmp_path: Path,
) -> None:
    """The same file and seed, played once into SQLite and once into PostgreSQL: the same
    matches (chips per unit) and the same leaderboard; then `arena ratings` and `arena
    report` read the PostgreSQL database by its URL."""
    on_sqlite = _play(tmp_path / "sqlite", str(tmp_path / "sqlite" / "arena.db"))
    on_postgres = _play(tmp_path / "postgres", url)
    assert on_sqlite[0] == on_postgres[0]
    assert on_sqlite[1] == on_postgres[1]
    print(
        f"\nissue 12 item 4: 3 matches x 40 duplicate hands, 3 builtin bots: "
        f"SQLite {on_sqlite[2]:.2f} s, PostgreSQL {on_postgres[2]:.2f} s"
    )
    runner = CliRunner()
    shown = runner.invoke(cli, ["ratings", "--db", url])
    assert 0 == shown.exit_code, shown.output
    assert all(bot in shown.output for bot in ("calling-station", "rule-based", "random"))
    report = tmp_path / "report.html"
    written = runner.invoke(cli, ["report", "--db", url, "-o", str(report)])
    assert 0 == written.exit_code, written.output
    assert "calling-station" in report.read_text()


def test_resume_on_postgres_plays_the_matches_a_bot_could_not_start(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`arena tournament run` into a URL: a bot that cannot start forfeits (NOT_STARTED),
    the tournament stays running; `resume` from the same file replaces the forfeits with
    played results (each match once) and finishes it."""
    fixed = tmp_path / "flags" / "fixed"
    monkeypatch.setenv("FIXED", str(fixed))
    extra = f'\n[[bots]]\nname = "broken"\ncommand = "{sys.executable} {BROKEN}"\n'
    extra += flag_limits("FIXED", fixed)
    path = write_tournament(tmp_path, "league", extra_bots=extra, hands=4)
    text = path.read_text().replace('database = "arena.db"', f'database = "{url}"')
    path.write_text(text + "\n[timeouts]\nstartup = 5\n")
    first = CliRunner().invoke(cli, ["tournament", "run", str(path), "--no-plugins"])
    assert 3 == first.exit_code, first.output
    assert f"matches recorded in {url}" in " ".join(first.output.split())
    with Store.open(url, create=False) as store:
        tournament = store.get_tournament("league")
        assert tournament is not None and "running" == tournament.status
        assert 3 == len(store.not_started_matches(tournament.id))
    fixed.touch()
    second = CliRunner().invoke(cli, ["tournament", "resume", str(path), "--no-plugins"])
    assert 0 == second.exit_code, second.output
    with Store.open(url, create=False) as store:
        rows = store.match_rows(tournament="league")
        assert 6 == len(rows) == len({row.key for row in rows})
        assert NOT_STARTED not in {row.reason for row in rows}
        assert 12 == store._db.execute("SELECT COUNT(*) FROM seat_results").fetchone()[0]
        finished = store.get_tournament("league")
        assert finished is not None and "finished" == finished.status
