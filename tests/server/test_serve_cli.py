"""``arena serve`` end to end (issue 11 items 4, 5 and 6): the README's recipe with
real processes on 127.0.0.1 over TLS. Two bots dial in (the Python SDK's rule-based
bot, and the Node bot when Node.js is set up), one is launched by the arena, and the
round robin plays to the end with every match recorded once. A wrong token never plays.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("trustme", reason="trustme (dev extra) makes the TLS material")
from tls_material import make_tls_material

ROOT = Path(__file__).resolve().parents[2]
ARENA = [sys.executable, "-m", "arena"]
NODE_BOT = ROOT / "examples_bots" / "node"
HAVE_NODE = shutil.which("node") is not None and (NODE_BOT / "node_modules").is_dir()
LISTENING = re.compile(r"listening for bots on (\S+) ")


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ, COLUMNS="200", PYTHONUNBUFFERED="1")
    env.update(extra)
    return env


def _token(tokens: Path, name: str) -> str:
    done = subprocess.run(
        [*ARENA, "bots", "add", name, "--tokens", str(tokens)],
        capture_output=True,
        text=True,
        check=True,
        env=_env(),
    )
    return done.stdout.strip()


def _league(folder: Path, remote: list[str]) -> Path:
    bots = "".join(f'\n[[bots]]\nname = "{name}"\nremote = true\n' for name in remote)
    path = folder / "league.toml"
    path.write_text(
        f"""[tournament]
name = "dial-league"
format = "round_robin"
hands_per_match = 40
duplicate = false
concurrency = 2
output = "runs"
database = "league.db"
{bots}
[[bots]]
name = "house"
command = "{{python}} {ROOT / "examples_bots" / "rule_based.py"}"
"""
    )
    return path


def _wait_for_address(serve: subprocess.Popen, log: Path) -> str:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        found = LISTENING.search(log.read_text())
        if found:
            return found.group(1)
        if serve.poll() is not None:
            pytest.fail(f"arena serve exited early:\n{log.read_text()}")
        time.sleep(0.1)
    pytest.fail(f"arena serve never said where it listens:\n{log.read_text()}")


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


def test_item4_two_remote_bots_and_a_launched_one_play_the_league_over_tls(tmp_path) -> None:
    tls = make_tls_material(tmp_path / "tls")
    tokens = tmp_path / "tokens.json"
    remote = ["alice", "bob"]
    token = {name: _token(tokens, name) for name in remote}
    league = _league(tmp_path, remote)
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        serve = subprocess.Popen(
            [*ARENA, "serve", str(league), "--listen", "127.0.0.1:0", "--tokens", str(tokens),
             "--tls-cert", str(tls.cert), "--tls-key", str(tls.key)],
            cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT, env=_env(),
        )  # fmt: skip
    bots: list[subprocess.Popen] = []
    try:
        address = _wait_for_address(serve, log)
        python_bot = [sys.executable, str(ROOT / "examples_bots" / "rule_based.py")]
        bob = (
            ["node", str(NODE_BOT / "bot.js")]
            if HAVE_NODE
            else [sys.executable, str(ROOT / "examples_bots" / "random_bot.py")]
        )
        for name, command in (("alice", python_bot), ("bob", bob)):
            bots.append(
                subprocess.Popen(
                    [*command, "--dial", address, "--ca", str(tls.ca_file), "--tables", "2"],
                    env=_env(ARENA_TOKEN=token[name]),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        assert serve.wait(180) == 0, log.read_text()
    finally:
        for process in [*bots, serve]:
            _stop(process)
    text = log.read_text()
    assert "3/3 matches recorded" in text, text
    with sqlite3.connect(tmp_path / "league.db") as db:
        keys = [row[0] for row in db.execute("SELECT match_key FROM matches")]
        folders = [Path(row[0]) for row in db.execute("SELECT records_dir FROM matches")]
    assert len(keys) == 3 and len(set(keys)) == 3  # every match recorded once
    seats = [seat for f in folders for seat in json.loads((f / "result.json").read_text())["seats"]]
    assert {seat["name"]: seat["sandbox"] for seat in seats}["alice"] == "dial-in"
    if not HAVE_NODE:
        print("the Node bot was not set up (node or npm ci missing): bob was the Python SDK")


def test_item6_a_wrong_token_never_plays_a_hand(tmp_path) -> None:
    tokens = tmp_path / "tokens.json"
    _token(tokens, "alice")
    league = _league(tmp_path, ["alice"])
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        serve = subprocess.Popen(
            [*ARENA, "serve", str(league), "--listen", "127.0.0.1:0", "--tokens", str(tokens)],
            cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT, env=_env(),
        )  # fmt: skip
    try:
        address = _wait_for_address(serve, log)
        wrong = "arena_alice_" + "0" * 64
        bot = subprocess.run(
            [sys.executable, str(ROOT / "examples_bots" / "rule_based.py"),
             "--dial", address, "--insecure"],
            env=_env(ARENA_TOKEN=wrong), capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert bot.returncode != 0
        assert "UNAUTHENTICATED" in bot.stderr or "token" in bot.stderr.lower()
        assert wrong not in bot.stderr  # the token is never printed
        assert "Traceback" not in bot.stderr
        deadline = time.monotonic() + 60
        while "waiting for: alice" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert "waiting for: alice" in log.read_text()
        assert serve.poll() is None  # still waiting for alice: nothing was played
    finally:
        _stop(serve)
    with sqlite3.connect(tmp_path / "league.db") as db:
        assert db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == 0


def test_item4_ctrl_c_while_waiting_names_the_serve_command_to_resume(tmp_path) -> None:
    tokens = tmp_path / "tokens.json"
    _token(tokens, "alice")
    league = _league(tmp_path, ["alice"])
    log = tmp_path / "serve.log"
    with log.open("w") as out:
        serve = subprocess.Popen(
            [*ARENA, "serve", str(league), "--listen", "127.0.0.1:0", "--tokens", str(tokens)],
            cwd=tmp_path, stdout=out, stderr=subprocess.STDOUT, env=_env(),
        )  # fmt: skip
    try:
        _wait_for_address(serve, log)
        deadline = time.monotonic() + 60
        while "waiting for: alice" not in log.read_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        serve.send_signal(signal.SIGINT)
        assert serve.wait(60) == 130
    finally:
        _stop(serve)
    text = log.read_text()
    assert "--resume --listen" in text and "arena tournament resume" not in text, text
    assert "Traceback" not in text


def test_item4_serving_a_tournament_that_exists_names_serve_resume(tmp_path) -> None:
    tokens = tmp_path / "tokens.json"
    _token(tokens, "alice")
    league = _league(tmp_path, ["alice"])
    command = [*ARENA, "serve", str(league), "--listen", "127.0.0.1:0", "--tokens", str(tokens)]
    first = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, env=_env())  # fmt: skip
    try:
        # Interrupt once the schedule is recorded: "waiting for" comes after it (a SIGINT
        # as soon as league.db appeared could stop it before, leaving nothing to resume).
        assert first.stdout is not None
        for line in first.stdout:
            if line.startswith(b"waiting for:"):
                break
        first.send_signal(signal.SIGINT)
        first.wait(60)
    finally:
        _stop(first)
    again = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=60,
                           env=_env())  # fmt: skip
    assert again.returncode == 1
    assert "already exists" in again.stderr and "arena serve FILE --resume" in again.stderr
