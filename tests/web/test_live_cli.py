"""``--watch [ADDRESS]`` on ``arena match`` and ``arena tournament run`` (issue 10 item 3):
127.0.0.1 and a free port unless told, the URL and the director's token printed at start,
a bad address or a busy port one line before anything plays."""

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
DIRECTOR = re.compile(r"director \(every card, after each hand\): (http://\S+/director\?token=\S+)")


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


def test_item3_match_watch_prints_the_url_and_the_director_token(tmp_path: Path):
    result = CliRunner().invoke(
        cli,
        [*MATCH, "--hands", "5", "--seed", "1", "--out", str(tmp_path), "--watch"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    port = int(URL.search(result.output).group(1))
    assert port > 0
    director = DIRECTOR.search(result.output).group(1)
    assert director.startswith(f"http://127.0.0.1:{port}/director?token=")
    assert len(director.split("token=")[1]) >= 24
    assert "5 hands" in result.output


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


def test_item3_tournament_run_watch(tmp_path: Path):
    file = tmp_path / "t.toml"
    file.write_text(
        '[tournament]\nname = "live"\nformat = "round_robin"\nhands_per_match = 5\n'
        'seed = 1\noutput = "runs"\ndatabase = "arena.db"\n'
        '[[bots]]\nname = "r"\nbuiltin = "random"\n'
        '[[bots]]\nname = "c"\nbuiltin = "calling-station"\n'
    )
    result = CliRunner().invoke(
        cli, ["tournament", "run", str(file), "--watch", "127.0.0.1:0"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert URL.search(result.output) and DIRECTOR.search(result.output)
    assert "1/1 matches recorded" in result.output
