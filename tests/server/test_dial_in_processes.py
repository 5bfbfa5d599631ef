"""Dial-in bots as real processes and over real streams (issue 11 item 6): a bot stopped
with SIGSTOP is found by keepalive, a bot SIGKILLed mid-match and started again takes
its held seat back, and no hidden card reaches another seat's stream (R18, R19).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import trio
from dial_kit import Dialer, make_tokens, settings

from arena.dealer import MatchSettings, policy_driver, run_match
from arena.engine import CardsDrawn, GameConfig, HandShown, HoleCardsDealt, Structure
from arena.server._arena import open_arena_server

pytestmark = pytest.mark.trio
ROOT = Path(__file__).resolve().parents[2]


def _sdk_bot(address: str, token: str) -> subprocess.Popen:
    """The SDK's calling station dialling in (plain text: 127.0.0.1 only)."""
    return subprocess.Popen(
        [sys.executable, str(ROOT / "examples_bots" / "calling_station.py"),
         "--dial", address, "--insecure", "--tables", "1"],
        env=dict(os.environ, ARENA_TOKEN=token),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip


def _end(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGCONT)
        process.kill()
    process.wait(10)


async def _until(predicate, what: str, limit: float = 30.0) -> None:
    with trio.move_on_after(limit) as scope:
        while not predicate():
            await trio.sleep(0.05)
    assert not scope.cancelled_caught, f"never happened: {what}"


def _settings(hands: int) -> MatchSettings:
    return MatchSettings(
        config=GameConfig(structure=Structure.FIXED_LIMIT),
        hands=hands,
        seed=9,
        action_timeout=0.5,
    )


async def test_item6_a_bot_stopped_with_sigstop_is_found_by_keepalive(tmp_path) -> None:
    tokens, issued = make_tokens(tmp_path, "alice")
    config = settings(tokens, keepalive=1.0, reconnect_window=2.0)
    async with open_arena_server(config, ["alice"]) as server:
        bot = _sdk_bot(server.address, issued["alice"])
        try:
            alice = server.bot("alice")
            await _until(lambda: alice.free_tables() == 1, "alice dials in")
            faults = []
            stopped = []

            def on_hand(number, *_):
                if number == 3 and not stopped:
                    os.kill(bot.pid, signal.SIGSTOP)
                    stopped.append(number)

            result = await run_match(
                [alice, policy_driver("cs", "calling-station")],
                _settings(100_000),  # ends only because alice is sat out
                on_hand=on_hand,
                on_fault=faults.append,
            )
        finally:
            _end(bot)
    assert stopped and result.sat_out[0]
    gone = [f for f in result.faults if f.reason == "DISCONNECTED"]
    assert gone and "reconnect window" in gone[0].detail  # the stream was found dead
    assert sum(result.chips_won) == 0


async def test_item6_a_bot_killed_mid_match_and_started_again_takes_its_seat_back(
    tmp_path,
) -> None:
    """A new process has no ticket: its plain stream is given the held seat first."""
    tokens, issued = make_tokens(tmp_path, "alice")
    async with open_arena_server(settings(tokens, reconnect_window=20.0), ["alice"]) as server:
        processes = [_sdk_bot(server.address, issued["alice"])]
        try:
            alice = server.bot("alice")
            await _until(lambda: alice.free_tables() == 1, "alice dials in")

            def on_hand(number, *_):
                if number == 5 and len(processes) == 1:
                    processes[0].kill()
                    processes.append(_sdk_bot(server.address, issued["alice"]))

            result = await run_match(
                [alice, policy_driver("cs", "calling-station")], _settings(60), on_hand=on_hand
            )
        finally:
            for process in processes:
                _end(process)
    assert len(processes) == 2
    assert result.hands_played == 60 and not result.sat_out[0]
    assert not [f for f in result.faults if f.reason == "DISCONNECTED"]
    assert sum(result.chips_won) == 0


async def test_r18_r19_no_hidden_card_reaches_another_dial_in_stream(tmp_path) -> None:
    """The leak check of tests/dealer/test_leak.py, on what remote bots really received."""
    names = ["alice", "bob", "carol"]
    tokens, issued = make_tokens(tmp_path, *names)
    own: dict[int, list[set[str]]] = {}
    shown: dict[int, set[str]] = {}

    def on_hand(number, hand, players, _names):
        mine = [set() for _ in names]
        public: set[str] = set()
        for event in hand.events:
            if isinstance(event, HoleCardsDealt):
                mine[players[event.seat]].update(map(str, event.cards))
            elif isinstance(event, CardsDrawn):
                mine[players[event.seat]].update(map(str, event.drawn))
            elif isinstance(event, HandShown):
                public.update(map(str, event.cards))
        own[number] = mine
        shown[number] = public

    async with open_arena_server(settings(tokens), names) as server:
        dialers = [Dialer(server.address, issued[n], matches=1).start() for n in names]
        try:
            await server.wait_for(dict.fromkeys(names, 1))
            await run_match([server.bot(n) for n in names], _settings(150), on_hand=on_hand)
        finally:
            for dialer in dialers:
                await trio.to_thread.run_sync(dialer.stop)
    checked = 0
    for seat, dialer in enumerate(dialers):
        (messages,) = [m for m in dialer.played if m]
        for message in messages:
            kind = message.WhichOneof("kind")
            if kind not in ("decision", "hand_end"):
                continue
            body = getattr(message, kind)
            number = int(body.hand_id.rsplit("/", 1)[1])
            cards = set(body.hole_cards) if kind == "decision" else set()
            for event in body.history:
                cards.update(event.cards)
            if kind == "hand_end":
                for hand in body.shown:
                    cards.update(hand.cards)
            allowed = own[number][seat] | (shown[number] if kind == "hand_end" else set())
            assert not cards - allowed, f"seat {seat} saw {cards - allowed} in hand {number}"
            checked += 1
    assert checked > 300
