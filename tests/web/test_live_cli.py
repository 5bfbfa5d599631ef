"""``--watch [ADDRESS]`` on ``arena match`` and ``arena tournament run`` (issue 10 item 3):
127.0.0.1 and a free port unless told, the URL printed and the file that holds the
director's URL named at start (issue 19 item 9e), a bad address or a busy port one line
before anything plays."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import cli
from arena.cli._app import _register
from arena.web import AddressError, is_loopback, parse_address

_register()  # the commands, as arena.cli.main does

MATCH = ["match", "builtin:random", "builtin:calling-station"]
URL = re.compile(r"watch live: http://127\.0\.0\.1:(\d+)/")
DIRECTOR_FILE = re.compile(r"director's view \(every card, after each hand\): its URL is in (\S+) ")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("127.0.0.1", ("127.0.0.1", 0)),
        ("127.0.0.1:8000", ("127.0.0.1", 8000)),
        (":8000", ("127.0.0.1", 8000)),
        ("0.0.0.0:80", ("0.0.0.0", 80)),
        ("[::1]:9000", ("::1", 9000)),
        ("::1", ("::1", 0)),
        ("localhost:1", ("localhost", 1)),
    ],
)
def test_item3_watch_addresses(text, expected):
    assert parse_address(text) == expected


@pytest.mark.parametrize(
    "text", ["builtin:random", "example.com:80", "127.0.0.1:99999", "[::1", "1.2.3.4:x", "[::1]x"]
)
def test_item3_bad_watch_addresses_are_refused(text):
    with pytest.raises(AddressError):
        parse_address(text)


def test_item3_loopback():
    assert is_loopback("127.0.0.1") and is_loopback("::1") and is_loopback("localhost")
    assert not is_loopback("0.0.0.0")


def test_item3_match_watch_prints_the_url_and_where_the_director_url_is(tmp_path: Path):
    result = CliRunner().invoke(
        cli,
        [*MATCH, "--hands", "5", "--seed", "1", "--out", str(tmp_path), "--watch"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    port = int(URL.search(result.output).group(1))
    assert port > 0
    assert DIRECTOR_FILE.search(result.stderr)
    assert "5 hands" in result.output


def test_item9e_the_director_token_is_never_printed_into_a_pipe_or_file(tmp_path: Path):
    """Issue 19 item 9e: neither ``arena match --watch`` nor ``arena tournament run
    --watch`` writes the director's token to stdout or to a stderr that is not a
    terminal (a log file); both name the 0600 file that holds it, on stderr."""
    runner = CliRunner()
    match = runner.invoke(
        cli, [*MATCH, "--hands", "2", "--out", str(tmp_path / "m"), "--watch"],
        catch_exceptions=False,
    )  # fmt: skip
    tournament = runner.invoke(
        cli, ["tournament", "run", str(_tournament_file(tmp_path)), "--watch"],
        catch_exceptions=False,
    )  # fmt: skip
    for result in (match, tournament):
        assert result.exit_code == 0, result.output
        assert "token=" not in result.stdout and "token=" not in result.stderr
        assert DIRECTOR_FILE.search(result.stderr), result.stderr
        assert not DIRECTOR_FILE.search(result.stdout)


def test_item3_watch_before_the_bots_is_one_clear_line(tmp_path: Path):
    result = CliRunner().invoke(
        cli,
        ["match", "--watch", "builtin:random", "builtin:calling-station", "--out", str(tmp_path)],
    )
    assert result.exit_code == 2
    assert "--watch=ADDRESS" in result.output and "Traceback" not in result.output


def test_item3_a_busy_port_is_one_line(tmp_path: Path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = CliRunner().invoke(
            cli,
            [*MATCH, "--hands", "2", "--out", str(tmp_path), f"--watch=127.0.0.1:{port}"],
        )
    assert result.exit_code == 1, result.output
    assert f"cannot serve the live page at 127.0.0.1:{port}" in result.output
    assert "Traceback" not in result.output


def _tournament_file(folder: Path) -> Path:
    file = folder / "t.toml"
    file.write_text(
        '[tournament]\nname = "live"\nformat = "round_robin"\nhands_per_match = 5\n'
        'seed = 1\noutput = "runs"\ndatabase = "arena.db"\n'
        '[[bots]]\nname = "r"\nbuiltin = "random"\n'
        '[[bots]]\nname = "c"\nbuiltin = "calling-station"\n'
    )
    return file


def test_item3_tournament_run_watch(tmp_path: Path):
    file = _tournament_file(tmp_path)
    result = CliRunner().invoke(
        cli, ["tournament", "run", str(file), "--watch", "127.0.0.1:0"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert URL.search(result.output) and DIRECTOR_FILE.search(result.stderr)
    assert "1/1 matches recorded" in result.output


@pytest.mark.trio
async def test_item9e_the_director_url_is_in_a_0600_file_removed_when_the_page_stops(capsys):
    """Issue 19 item 9e: the file named on stderr is the only place the token is written
    (stderr is not a terminal here): 0600, in a 0700 folder of its own, holding the
    director's URL, and gone once the page stops (the token is dead by then)."""
    import io
    import stat

    from rich.console import Console

    from arena.cli._watch import live_view

    console_text = io.StringIO()
    async with live_view("127.0.0.1", "t", Console(file=console_text)) as hub:
        assert hub is not None
        said = capsys.readouterr()
        path = Path(DIRECTOR_FILE.search(said.err).group(1))
        url = path.read_text().strip()
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/director\?token=[\w-]{24,}", url)
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert path.stat().st_uid == path.parent.stat().st_uid
        assert "token=" not in console_text.getvalue() + said.out + said.err
    assert not path.exists() and not path.parent.exists()
