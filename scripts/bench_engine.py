"""Benchmark the arena's rules engine against PokerKit 0.7 playing the same game.

Not a test: run it by hand (``python scripts/bench_engine.py``) after touching
``arena/engine/``. For fixed, pot and no limit with 2 and 6 players, and two policies,
it counts whole hands per second played in-process by the arena engine and by PokerKit
configured as the same Five Card Draw (``scripts/_pokerkit_game.py``):

* ``call+draw2``: every player checks or calls and discards two cards;
* ``random``: a seeded random legal action (fold 15 % when facing a bet, bet or raise
  30 % to a uniform legal amount, else check or call) and a random discard of 0 to 5.

Each hand includes creating it (shuffle, forced bets, deal) and playing it to the
end (showdown and chips pushed). Each row runs for a fixed wall time per engine, in three interleaved slices of
which the fastest counts. The
target is at least 30x PokerKit on every row; ``--profile`` prints the arena's hot
spots for the rows that miss it. PokerKit comes with the ``bench`` extra:
``pip install -e '.[bench]'``.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType

sys.path.insert(0, str(Path(__file__).resolve().parent))

import arena.engine
from arena.engine import GameConfig, Structure

Play = Callable[[GameConfig, int, random.Random], None]

TARGET_RATIO = 30.0
STACK = 200
STRUCTURES = (Structure.FIXED_LIMIT, Structure.POT_LIMIT, Structure.NO_LIMIT)
PLAYER_COUNTS = (2, 6)
POLICIES = ("call+draw2", "random")


def _config(structure: Structure) -> GameConfig:
    if structure is Structure.FIXED_LIMIT:
        return GameConfig(structure=structure, small_bet=2)
    return GameConfig(structure=structure, small_blind=1, big_blind=2)


# --- the arena ------------------------------------------------------------------------


def arena_plays(engine: ModuleType = arena.engine) -> dict[str, Play]:
    """The two policies played by ``engine`` (``arena.engine``, or an earlier revision of it
    loaded under another name by ``bench_engine_ab.py``), keyed by policy name."""
    Hand, Deck, draw = engine.Hand, engine.Deck, engine.Phase.DRAW

    def call_draw2(config: GameConfig, n: int, rng: random.Random) -> None:
        hand = Hand(config, [STACK] * n, rng.randrange(n), Deck.shuffled(rng))
        while hand.actor is not None:
            if hand.phase is draw:
                hand.discard(hand.holes[hand.actor][:2])
            else:
                hand.check_or_call()

    def random_legal(config: GameConfig, n: int, rng: random.Random) -> None:
        hand = Hand(config, [STACK] * n, rng.randrange(n), Deck.shuffled(rng))
        while hand.actor is not None:
            legal = hand.legal_actions()
            if legal.phase is draw:
                hole = hand.holes[legal.seat]
                hand.discard(rng.sample(hole, rng.randint(0, legal.max_discard)))
                continue
            roll = rng.random()
            if legal.can_fold and roll < 0.15:
                hand.fold()
            elif legal.max_raise_to and roll > 0.7:
                hand.bet_or_raise(rng.randint(legal.min_raise_to, legal.max_raise_to))
            else:
                hand.check_or_call()

    return {"call+draw2": call_draw2, "random": random_legal}


# --- PokerKit -------------------------------------------------------------------------


def _pokerkit_players(config: GameConfig, n: int):
    from _pokerkit_game import AUTOMATIONS_ALL, create_state, streets

    game_streets = streets(config)

    def new_state(rng: random.Random):
        rng.randrange(n)  # the button: PokerKit's seats are always button-relative
        return create_state(
            config, [STACK] * n, automations=AUTOMATIONS_ALL, game_streets=game_streets
        )

    def call_draw2(_config: GameConfig, _n: int, rng: random.Random) -> None:
        state = new_state(rng)
        while state.status:
            player = state.stand_patter_or_discarder_index
            if player is not None:
                state.stand_pat_or_discard(state.hole_cards[player][:2])
            else:
                state.check_or_call()

    def random_legal(_config: GameConfig, _n: int, rng: random.Random) -> None:
        state = new_state(rng)
        while state.status:
            player = state.stand_patter_or_discarder_index
            if player is not None:
                hole = state.hole_cards[player]
                state.stand_pat_or_discard(rng.sample(hole, rng.randint(0, config.max_draw)))
                continue
            roll = rng.random()
            if roll < 0.15 and state.can_fold():
                state.fold()
            elif roll > 0.7 and state.can_complete_bet_or_raise_to():
                low = state.min_completion_betting_or_raising_to_amount
                high = state.max_completion_betting_or_raising_to_amount
                state.complete_bet_or_raise_to(rng.randint(low, high))
            else:
                state.check_or_call()

    return {"call+draw2": call_draw2, "random": random_legal}


# --- measuring ------------------------------------------------------------------------


def _slice_rate(
    play: Play, config: GameConfig, n: int, seconds: float, rng: random.Random
) -> float:
    """Hands per second over one slice of ``seconds`` wall time (at least 10 hands)."""
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    count = 0
    while True:
        play(config, n, rng)
        count += 1
        if count >= 10 and clock() >= deadline:
            break
    return count / (clock() - start)


def measure_row(
    arena_play: Play,
    pokerkit_play: Play,
    config: GameConfig,
    n: int,
    seconds: tuple[float, float],
    seed: int,
    repeats: int = 3,
) -> tuple[float, float]:
    """(arena, PokerKit) hands per second: the best of ``repeats`` interleaved slices each,
    which sheds most of the noise of a busy machine; ``seconds`` is each engine's total."""
    arena_rng, pokerkit_rng = random.Random(seed), random.Random(seed)
    arena_best = pokerkit_best = 0.0
    for _ in range(repeats):
        arena_best = max(
            arena_best, _slice_rate(arena_play, config, n, seconds[0] / repeats, arena_rng)
        )
        pokerkit_best = max(
            pokerkit_best, _slice_rate(pokerkit_play, config, n, seconds[1] / repeats, pokerkit_rng)
        )
    return arena_best, pokerkit_best


def profile_row(play: Play, config: GameConfig, n: int, hands: int, seed: int) -> str:
    """cProfile's top functions (by own time) over ``hands`` arena hands."""
    rng = random.Random(seed)
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(hands):
        play(config, n, rng)
    profiler.disable()
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(15)
    return out.getvalue()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="short run: 0.3 s / 0.15 s per row")
    parser.add_argument("--seconds", type=float, default=None, help="arena wall time per row (1.5)")
    parser.add_argument("--seed", type=int, default=20240601, help="policy and deck seed")
    parser.add_argument("--profile", action="store_true", help="profile rows below the target")
    args = parser.parse_args(argv)

    try:
        import pokerkit
    except ImportError:
        print("PokerKit is not installed; it is in the bench extra: pip install -e '.[bench]'",
              file=sys.stderr)  # fmt: skip
        return 2

    arena_seconds = args.seconds if args.seconds is not None else (0.3 if args.quick else 1.5)
    pokerkit_seconds = arena_seconds / 2
    plays = arena_plays()
    warnings.simplefilter("ignore")  # PokerKit warns when it refills the deck from discards
    print(
        f"Five Card Draw, {STACK}-chip stacks, blinds 1/2; arena {arena_seconds:g} s and "
        f"PokerKit {pokerkit.__name__} {_pokerkit_version()} {pokerkit_seconds:g} s per row; "
        f"Python {sys.version.split()[0]}"
    )
    header = f"{'structure':12s} {'players':>7s} {'policy':11s} {'arena h/s':>11s} {'pokerkit h/s':>13s} {'ratio':>8s}"
    print(header)
    print("-" * len(header))
    slow: list[tuple[Structure, int, str]] = []
    for structure in STRUCTURES:
        config = _config(structure)
        for n in PLAYER_COUNTS:
            pokerkit_plays = _pokerkit_players(config, n)
            for policy in POLICIES:
                arena_rate, pk_rate = measure_row(
                    plays[policy],
                    pokerkit_plays[policy],
                    config,
                    n,
                    (arena_seconds, pokerkit_seconds),
                    args.seed,
                )
                ratio = arena_rate / pk_rate
                flag = "" if ratio >= TARGET_RATIO else "  < target"
                if ratio < TARGET_RATIO:
                    slow.append((structure, n, policy))
                print(
                    f"{structure.value:12s} {n:>7d} {policy:11s} {arena_rate:>11,.0f} "
                    f"{pk_rate:>13,.0f} {ratio:>7.1f}x{flag}"
                )
    if slow:
        print(f"\n{len(slow)} row(s) below {TARGET_RATIO:g}x PokerKit.")
        if args.profile:
            for structure, n, policy in slow:
                print(f"\n== arena profile: {structure.value}, {n} players, {policy} ==")
                print(profile_row(plays[policy], _config(structure), n, 3000, args.seed))
        return 1
    print(f"\nEvery row is at least {TARGET_RATIO:g}x PokerKit.")
    return 0


def _pokerkit_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("pokerkit")
    except PackageNotFoundError:
        return "?"


if __name__ == "__main__":
    sys.exit(main())
