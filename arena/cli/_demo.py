"""``arena demo``: the example players at one table, with a summary that has error bars."""

from __future__ import annotations

import random

import click
from rich.console import Console
from rich.table import Table as RichTable

from arena.engine import Deck, GameConfig, Hand, Structure
from arena.policies import BUILT_IN
from arena.stats import win_rate


@click.command("demo")
@click.option("--hands", default=600, show_default=True, help="Hands to play.")
@click.option("--seed", default=2026, show_default=True, help="Seed for cards and random players.")
@click.option(
    "--structure",
    type=click.Choice([s.value for s in Structure]),
    default=Structure.FIXED_LIMIT.value,
    show_default=True,
)
@click.option(
    "--players",
    default="random,calling-station,rule-based",
    show_default=True,
    help=f"Comma-separated built-in policies: {', '.join(BUILT_IN)}.",
)
def command(hands: int, seed: int, structure: str, players: str) -> None:
    """Play a few hundred hands between built-in in-process players and print a summary.

    Stacks reset to 100 big blinds every hand (as in research matches) and the
    button moves one seat per hand.
    """
    names = [name.strip() for name in players.split(",") if name.strip()]
    unknown = [name for name in names if name not in BUILT_IN]
    if unknown or not 2 <= len(names) <= 7:
        raise click.BadParameter(
            f"need 2-7 of {', '.join(BUILT_IN)}; got {players!r}", param_hint="--players"
        )
    rng = random.Random(seed)
    policies = [
        BUILT_IN[name](random.Random(rng.random())) if name == "random" else BUILT_IN[name]()
        for name in names
    ]
    config = GameConfig(structure=Structure(structure), big_blind=2, small_bet=2)
    stack = 100 * config.big_blind
    results: list[list[int]] = [[] for _ in names]
    for number in range(hands):
        hand = Hand(config, [stack] * len(names), number % len(names), Deck.shuffled(rng))
        while hand.actor is not None:
            hand.apply(policies[hand.actor].decide(hand.view(hand.actor)))
        for seat, payoff in enumerate(hand.payoffs or ()):
            results[seat].append(payoff)
    table = RichTable(title=f"{hands} hands of {structure.replace('_', ' ')} Five Card Draw")
    table.add_column("player")
    table.add_column("chips won", justify="right")
    table.add_column("mbb/hand (95% CI)", justify="right")
    order = sorted(range(len(names)), key=lambda seat: -sum(results[seat]))
    for seat in order:
        rate = win_rate(results[seat], config.big_blind)  # type: ignore[arg-type]
        table.add_row(f"{names[seat]} (seat {seat})", f"{sum(results[seat]):+d}", str(rate))
    Console().print(table)
