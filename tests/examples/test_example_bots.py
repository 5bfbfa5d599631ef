"""The example bots form a ladder: random < calling station < rule-based < Monte Carlo.

Each test plays a heads-up duplicate match in-process (the bots' own ``Bot`` classes,
loaded from ``examples_bots/``, seated through ``LocalBot``): hands 2k-1 and 2k share a
deck with the seats' cards swapped, so the luck of the deal cancels out of each pair.
The stronger bot must win with the 95% lower confidence bound of its chips per pair
above zero. Seeds are fixed, so the tests are deterministic; the hand counts were
chosen on other seeds too, each winning with a wide margin (the report is in the
assertion message).
"""

from __future__ import annotations

import importlib.util
import math
import random
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest
import trio

from arena.dealer import LocalBot, MatchSettings, run_match
from arena.engine import Deck, GameConfig, Hand, JokerMode, Structure
from arena.policies import MonteCarloPolicy, RandomPolicy, RuleBased
from arena.sdk import Bot

EXAMPLES = Path(__file__).resolve().parents[2] / "examples_bots"
SEED = 20240611
CONFIG = GameConfig(structure=Structure.FIXED_LIMIT, small_bet=2)  # blinds 1/2, bets 2/4


def load_example(stem: str) -> ModuleType:
    """Import ``examples_bots/<stem>.py`` (a script, not a package) as a module."""
    name = f"examples_bots_{stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{stem}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def random_bot() -> Bot:
    return load_example("random_bot").RandomBot(random.Random(SEED))


def calling_station() -> Bot:
    return load_example("calling_station").CallingStation()


def rule_based() -> Bot:
    return load_example("rule_based").RuleBasedBot()


def monte_carlo() -> Bot:
    return load_example("monte_carlo").MonteCarloBot(seed=SEED)


def duplicate_pairs(strong: Bot, weak: Bot, hands: int) -> list[int]:
    """Chips the strong bot (seat 0) wins per duplicate pair of hands."""
    settings = MatchSettings(
        config=CONFIG, hands=hands, seed=SEED, duplicate=True, action_timeout=5.0
    )
    result = trio.run(run_match, [LocalBot(strong), LocalBot(weak)], settings)
    assert result.hands_played == hands
    assert not result.faults, result.faults[:3]
    assert sum(result.chips_won) == 0  # R26
    won = [payoffs[0] for payoffs in result.payoffs]
    return [won[i] + won[i + 1] for i in range(0, hands - 1, 2)]


def lower_bound(pairs: list[int]) -> tuple[float, float, float]:
    """(mean, half width, lower bound) of the 95% normal interval of the mean per pair."""
    n = len(pairs)
    mean = sum(pairs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in pairs) / (n - 1))
    half = 1.96 * sd / math.sqrt(n)
    return mean, half, mean - half


def assert_beats(strong: Bot, weak: Bot, hands: int) -> None:
    pairs = duplicate_pairs(strong, weak, hands)
    mean, half, low = lower_bound(pairs)
    report = (
        f"{strong.name} vs {weak.name} over {hands} hands: "
        f"{mean:+.2f} ± {half:.2f} chips per duplicate pair "
        f"({mean / 2 / CONFIG.big_blind * 1000:+.0f} mbb/hand)"
    )
    print(report)
    assert low > 0, report


def test_calling_station_beats_random():
    """Calling every bet and drawing to pairs beats random play."""
    assert_beats(calling_station(), random_bot(), hands=400)


def test_rule_based_beats_calling_station():
    """Betting made hands and folding junk beats never folding."""
    assert_beats(rule_based(), calling_station(), hands=400)


def test_monte_carlo_beats_rule_based():
    """Equity against pot odds, with opponents read from their draws and bets, beats fixed rules."""
    assert_beats(monte_carlo(), rule_based(), hands=600)


@pytest.mark.parametrize("stem", ["random_bot", "calling_station", "rule_based", "monte_carlo"])
def test_example_bot_is_a_complete_script(stem):
    """Every example runs as ``python examples_bots/<name>.py`` and serves its bot with ``run``."""
    source = (EXAMPLES / f"{stem}.py").read_text()
    assert 'if __name__ == "__main__":' in source
    assert "run(" in source
    assert isinstance(load_example(stem), ModuleType)


def test_calling_station_is_the_25_line_showcase():
    """The README shows calling_station.py whole: it must stay a complete bot in 25 lines."""
    assert len((EXAMPLES / "calling_station.py").read_text().splitlines()) <= 25


@pytest.mark.parametrize(
    ("structure", "joker", "max_draw"),
    [("no_limit", "wild", 3), ("fixed_limit", "bug", 5), ("pot_limit", "off", 4)],
)
def test_monte_carlo_policy_plays_full_tables_quickly(structure, joker, max_draw):
    """Seven seats, jokers (R2) and short draws (R15): the Monte Carlo policy always acts
    legally (the engine would raise) and decides in well under the 1 s clock (R23)."""
    config = GameConfig(
        structure=Structure(structure), big_blind=2, joker=JokerMode(joker), max_draw=max_draw
    )
    rng = random.Random(SEED)
    players = [
        MonteCarloPolicy(rng=random.Random(seat), joker=joker, max_draw=max_draw)
        if seat % 2 == 0
        else (RandomPolicy(random.Random(seat)) if seat % 4 == 1 else RuleBased())
        for seat in range(7)
    ]
    for player in players:
        if isinstance(player, MonteCarloPolicy):
            player.prepare()
    times = []
    for number in range(12):
        hand = Hand(config, [200] * 7, number % 7, Deck.shuffled(rng, joker=config.uses_joker))
        while hand.actor is not None:
            player = players[hand.actor]
            start = time.perf_counter()
            action = player.decide(hand.view(hand.actor))
            if isinstance(player, MonteCarloPolicy):
                times.append(time.perf_counter() - start)
            hand.apply(action)
        assert sum(hand.payoffs) == 0  # R26
    assert times
    assert sum(times) / len(times) < 0.05, f"mean decision {1000 * sum(times) / len(times):.1f} ms"
