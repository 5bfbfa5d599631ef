"""No deck from public information (issue 19 item 2): the seed alone gives nothing.

An organiser's seed (``--seed 7``, ``seed = 1`` in a shipped file) is public, and so is
the source. Every deck, each rotation's order and each seat's seed are keyed by a deal
key the bots never see; the seed and the key together deal the same cards again.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from arena.dealer import (
    DEAL_KEY_ENV,
    DealKeyError,
    LocalBot,
    MatchSettings,
    new_deal_key,
    run_duplicate_match,
    run_match,
    with_seed,
)
from arena.dealer._deal import deck_for, seat_seed
from arena.engine import Deck, GameConfig
from arena.sdk import Bot


class Recorder(Bot):
    """A calling station that keeps every message the dealer sent it, as bytes."""

    name = "recorder"

    def __init__(self) -> None:
        self.holes: list[tuple[str, ...]] = []
        self.seat_seed = 0
        self.wire: list[bytes] = []

    def on_match_start(self, message) -> None:
        self.seat_seed = message.seat_seed
        self.wire.append(message.SerializeToString())

    def on_hand_start(self, message) -> None:
        self.holes.append(tuple(message.hole_cards))
        self.wire.append(message.SerializeToString())

    def decide(self, decision):
        self.wire.append(decision.request.SerializeToString())
        return decision.stand_pat() if decision.is_draw else decision.check_or_call()


async def _play(settings: MatchSettings) -> list[Recorder]:
    bots = [Recorder(), Recorder()]
    await run_match([LocalBot(bot, name=f"s{i}") for i, bot in enumerate(bots)], settings)
    return bots


def _old_formula_decks(seed: int, count: int) -> list[Deck]:
    """The deck formula before deal keys (public source): what a bot would compute."""
    return [Deck.shuffled(random.Random(f"{seed}:{i}")) for i in range(count)]


@pytest.fixture(autouse=True)
def _fresh_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about keys drawn afresh: no fixed ``$ARENA_DEAL_KEY``."""
    monkeypatch.delenv(DEAL_KEY_ENV, raising=False)


@pytest.mark.trio
async def test_r4_a_known_seed_gives_no_card_without_the_key() -> None:
    """The deck formula of the public source, fed the organiser's seed, deals none of the
    hands dealt, and two matches with the same seed but fresh keys deal different cards
    and send different seat seeds (so a bot cannot search seeds from seat_seed)."""
    settings = MatchSettings(config=GameConfig(), hands=20, seed=7)
    first, second = await _play(settings), await _play(settings)
    assert first[0].holes != second[0].holes
    assert first[0].seat_seed != second[0].seat_seed
    old = _old_formula_decks(7, 20)
    for bots in (first, second):
        for hand, deck in zip(bots[0].holes, old, strict=True):
            top_ten = [str(card) for card in deck.deal(10)]
            assert not set(hand) <= set(top_ten)  # not the old deck, in any dealing order


@pytest.mark.trio
async def test_r4_the_seed_and_the_key_deal_the_same_cards_again() -> None:
    """Reproduction: the same seed and key give the same deals and seat seeds."""
    settings = MatchSettings(config=GameConfig(), hands=20, seed=7, deal_key="3c" * 32)
    first, second = await _play(settings), await _play(settings)
    assert first[0].holes == second[0].holes and first[1].holes == second[1].holes
    assert first[0].seat_seed == second[0].seat_seed != first[1].seat_seed


@pytest.mark.trio
async def test_the_key_never_reaches_a_bot() -> None:
    """No message to any seat of a duplicate match holds the key (hex or bytes)."""
    key = new_deal_key()
    settings = MatchSettings(config=GameConfig(), hands=12, seed=7, duplicate=True, deal_key=key)
    tables = [[Recorder(), Recorder()], [Recorder(), Recorder()]]
    drivers = [[LocalBot(b, name=f"s{i}") for i, b in enumerate(row)] for row in tables]
    await run_duplicate_match(drivers, settings)
    wire = b"".join(m for row in tables for bot in row for m in bot.wire)
    assert wire and key.encode() not in wire and bytes.fromhex(key) not in wire


def test_keyed_values_depend_on_every_input() -> None:
    """Deck, seat seed: another key, seed, index, table or seat gives another value."""
    a, b = "00" * 32, "01" * 32
    cards = lambda deck: [str(c) for c in deck.deal(52)]  # noqa: E731
    assert cards(deck_for(7, 0, False, a)) == cards(deck_for(7, 0, False, a))
    assert cards(deck_for(7, 0, False, a)) != cards(deck_for(7, 0, False, b))
    assert cards(deck_for(7, 0, False, a)) != cards(deck_for(7, 1, False, a))
    seeds = {seat_seed(7, a, "t", 0), seat_seed(7, b, "t", 0), seat_seed(8, a, "t", 0)}
    seeds |= {seat_seed(7, a, "u", 0), seat_seed(7, a, "t", 1)}
    assert len(seeds) == 5 and 0 not in seeds


def test_with_seed_draws_a_key_or_takes_the_environment_s(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh 64-hex-digit key each time; ``$ARENA_DEAL_KEY`` when set; a bad one is one
    clear error naming the variable."""
    monkeypatch.delenv(DEAL_KEY_ENV, raising=False)
    one = with_seed(MatchSettings(config=GameConfig(), seed=7))
    two = with_seed(MatchSettings(config=GameConfig(), seed=7))
    assert one.seed == two.seed == 7
    assert one.deal_key and two.deal_key and one.deal_key != two.deal_key
    assert len(one.deal_key) == 64 and int(one.deal_key, 16) >= 0
    monkeypatch.setenv(DEAL_KEY_ENV, "AB" * 32)
    assert with_seed(MatchSettings(config=GameConfig())).deal_key == "ab" * 32
    monkeypatch.setenv(DEAL_KEY_ENV, "not a key")
    with pytest.raises(DealKeyError, match=r"\$ARENA_DEAL_KEY"):
        with_seed(MatchSettings(config=GameConfig()))


def _match(
    tmp_path: Path, out: str, env: dict[str, str]
) -> tuple[subprocess.CompletedProcess, Path]:
    done = subprocess.run(
        [sys.executable, "-m", "arena", "match", "builtin:rule-based", "builtin:random",
         "--hands", "10", "--seed", "7", "--duplicate", "--out", str(tmp_path / out)],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    folders = list((tmp_path / out).glob("match-*"))
    return done, folders[0] if folders else tmp_path


def test_arena_match_records_the_key_and_a_rerun_with_it_deals_the_same(tmp_path: Path) -> None:
    """`arena match --seed 7` writes the deal key into log.jsonl (0600, never mounted);
    with `ARENA_DEAL_KEY` set to it, a rerun deals exactly the same hands; without it, not.
    A bad key is one line, no traceback."""
    import os

    env = {k: v for k, v in os.environ.items() if k != DEAL_KEY_ENV}
    done, first = _match(tmp_path, "a", env)
    assert done.returncode == 0, done.stderr
    start = json.loads((first / "log.jsonl").read_text().splitlines()[0])
    key = start["deal_key"]
    assert len(key) == 64 and start["seed"] == 7
    assert (first / "log.jsonl").stat().st_mode & 0o077 == 0
    again, second = _match(tmp_path, "b", {**env, DEAL_KEY_ENV: key})
    assert again.returncode == 0, again.stderr
    assert (first / "hands.phhs").read_text() == _renamed(second, first)
    other, third = _match(tmp_path, "c", env)
    assert other.returncode == 0, other.stderr
    assert (first / "hands.phhs").read_text() != _renamed(third, first)
    bad, _ = _match(tmp_path, "d", {**env, DEAL_KEY_ENV: "xyz"})
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert "ARENA_DEAL_KEY" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def _renamed(folder: Path, like: Path) -> str:
    """``folder``'s PHH text with its match id written as ``like``'s (ids differ per run)."""
    return (folder / "hands.phhs").read_text().replace(folder.name, like.name)


def test_arena_play_reproduces_with_the_seed_and_the_key_it_returns() -> None:
    """`arena.play(seed=7)` twice deals different cards (fresh keys); with the returned
    ``deal_key`` it plays the same match again; a bad key is a ValueError naming it."""
    import arena

    first = arena.play(["rule-based", "random"], hands=20, seed=7)
    other = arena.play(["rule-based", "random"], hands=20, seed=7)
    again = arena.play(["rule-based", "random"], hands=20, seed=7, deal_key=first.deal_key)
    assert len(first.deal_key) == 64 and first.deal_key != other.deal_key
    assert again.chips == first.chips
    assert first.deal_key not in repr(first)
    with pytest.raises(DealKeyError, match="deal_key"):
        arena.play(["rule-based", "random"], hands=2, deal_key="12")
