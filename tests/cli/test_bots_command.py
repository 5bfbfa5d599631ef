"""``arena bots add|list|revoke|rotate`` (issue 11 item 2): the token once, errors in one line."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.cli._app import _register
from arena.cli._tokens import Duration
from arena.server._tokens import TokenVerifier

ROOT = Path(__file__).resolve().parents[2]
TOKEN = re.compile(r"arena_[A-Za-z0-9_.\-]{1,64}_[0-9a-f]{64}")

_register()


def bots(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(cli, ["bots", *args], env=env, catch_exceptions=False)


@pytest.fixture
def store(tmp_path: Path) -> Path:
    return tmp_path / "data" / "tokens.json"


def add(store: Path, name: str) -> str:
    result = bots("add", name, "--tokens", str(store))
    assert 0 == result.exit_code, result.output
    return result.stdout.strip()


def test_add_prints_exactly_the_token_on_stdout(store: Path):
    """issue 11 item 2: stdout is the token alone on its line; stderr says how to use it."""
    result = bots("add", "alice", "--tokens", str(store))
    assert 0 == result.exit_code, result.output
    assert TOKEN.fullmatch(result.stdout.removesuffix("\n"))
    assert result.stdout.startswith("arena_alice_") and 1 == result.stdout.count("\n")
    assert "shown once" in result.stderr and "SHA-256" in result.stderr
    assert "authorization: Bearer" in result.stderr and "ARENA_TOKEN" in result.stderr
    assert TokenVerifier(store).check(result.stdout.strip()) is not None


def test_add_in_a_shell_substitution(tmp_path: Path):
    """issue 11 item 2: TOKEN=$(arena bots add alice) captures just the token (the real binary)."""
    arena = ROOT / ".venv" / "bin" / "arena"
    if not arena.exists():
        pytest.skip(f"no {arena}: the console script is installed by scripts/test")
    done = subprocess.run(
        ["sh", "-c", f'TOKEN=$("{arena}" bots add alice) && printf "%s" "$TOKEN"'],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "ARENA_TOKENS": ""},
    )
    assert 0 == done.returncode, done.stderr
    assert TOKEN.fullmatch(done.stdout) and done.stdout.startswith("arena_alice_")
    assert "shown once" in done.stderr
    assert (tmp_path / "arena-data" / "tokens.json").exists()  # the default place


def test_the_tokens_path_comes_from_the_environment(store: Path):
    """issue 11 item 2: $ARENA_TOKENS sets the store when --tokens is not given."""
    result = bots("add", "alice", env={"ARENA_TOKENS": str(store)})
    assert 0 == result.exit_code, result.output
    assert store.exists()


def test_list_shows_status_and_never_a_token_or_hash(store: Path):
    """issue 11 item 2: live, expiring (during a rotation's overlap) and revoked bots."""
    tokens = [add(store, "alice"), add(store, "bob"), add(store, "carol")]
    rotated = bots("rotate", "bob", "--overlap", "10m", "--tokens", str(store))
    assert 0 == rotated.exit_code, rotated.output
    assert 0 == bots("revoke", "carol", "--tokens", str(store)).exit_code
    result = bots("list", "--tokens", str(store))
    assert 0 == result.exit_code, result.output
    lines = result.stdout.splitlines()
    assert ["name", "status", "tokens", "created", "expires"] == lines[0].split()
    assert re.match(r"alice\s+live\s+1\s+\S+ \S+Z\s+never$", lines[1])
    assert re.match(r"bob\s+expiring\s+2\s+\S+ \S+Z\s+old token \S+ \S+Z$", lines[2])
    assert re.match(r"carol\s+revoked\s+0\s+", lines[3])
    for token in [*tokens, rotated.stdout.strip()]:
        assert token not in result.output
        assert token.rsplit("_", 1)[1] not in result.output
        assert hashlib.sha256(token.encode()).hexdigest() not in result.output


def test_list_of_a_store_not_yet_made(store: Path):
    """issue 11 item 2: no store yet is no bots, with how to add one (exit 0)."""
    result = bots("list", "--tokens", str(store))
    assert 0 == result.exit_code and "arena bots add NAME" in result.stdout


def test_rotate_prints_only_the_new_token_and_both_work(store: Path):
    """issue 11 item 2: rotate prints one new token; the old one works during the overlap."""
    old = add(store, "alice")
    result = bots("rotate", "alice", "--tokens", str(store))
    assert 0 == result.exit_code, result.output
    new = result.stdout.removesuffix("\n")
    assert TOKEN.fullmatch(new) and new != old
    assert "1h" in result.stderr and "shown once" in result.stderr
    verifier = TokenVerifier(store)
    assert verifier.check(old) is not None and verifier.check(new) is not None


def test_revoke_says_the_server_ends_the_streams(store: Path):
    """issue 11 item 2: revoke ends every token, and says a running server follows."""
    token = add(store, "alice")
    result = bots("revoke", "alice", "--tokens", str(store))
    assert 0 == result.exit_code, result.output
    assert "within a second" in result.stdout and "arena serve" in result.stdout
    assert TokenVerifier(store).check(token) is None


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("90", 90.0), ("30s", 30.0), ("10m", 600.0), ("1h", 3600.0), ("2d", 172800.0), ("0", 0.0)],
)
def test_overlap_durations(text: str, seconds: float):
    """issue 11 item 2: seconds, or a number with s, m, h, d."""
    assert seconds == Duration().convert(text, None, None)


@pytest.mark.parametrize("overlap", ["5x", "-1h", "1e9", "400d", "inf", ""])
def test_bad_overlap_is_a_usage_error(store: Path, overlap: str):
    """issue 11 item 2: a bad --overlap is refused before the store is touched."""
    add(store, "alice")
    before = store.read_bytes()
    result = bots("rotate", "alice", "--overlap", overlap, "--tokens", str(store))
    assert 2 == result.exit_code and "--overlap" in result.output
    assert before == store.read_bytes()


def one_line_error(result) -> str:
    assert 1 == result.exit_code, result.output
    assert "Traceback" not in result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("Error: ")
    return line


def test_errors_are_one_line(store: Path, tmp_path: Path):
    """issue 11 item 2: bad name, added twice, unknown bot, corrupt store, unwritable folder."""
    add(store, "alice")
    assert "bad bot name" in one_line_error(bots("add", "no spaces", "--tokens", str(store)))
    assert "\x1b" not in one_line_error(bots("add", "e\x1b[2Jvil", "--tokens", str(store)))
    twice = one_line_error(bots("add", "alice", "--tokens", str(store)))
    assert "arena bots rotate alice" in twice and str(store) in twice
    for verb in ("revoke", "rotate"):
        assert "no bot named zed" in one_line_error(bots(verb, "zed", "--tokens", str(store)))
    broken = tmp_path / "broken.json"
    broken.write_text('{"version": 1, "bots": [')
    broken.chmod(0o600)
    for args in (["list"], ["add", "bob"], ["revoke", "alice"], ["rotate", "alice"]):
        line = one_line_error(bots(*args, "--tokens", str(broken)))
        assert str(broken) in line and "corrupt" in line
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    line = one_line_error(bots("add", "bob", "--tokens", str(blocked / "tokens.json")))
    assert str(blocked) in line


def test_the_commands_are_listed_in_help():
    """issue 11 item 2: `arena bots --help` names the four commands."""
    result = CliRunner().invoke(cli, ["bots", "--help"])
    assert 0 == result.exit_code
    for name in ("add", "list", "revoke", "rotate"):
        assert name in result.output
