"""``arena check-bot``: drive one bot through every kind of decision and say what it got wrong.

For bot authors. Each scenario is a short seeded match against in-process opponents
over the bot's real transport; any fault is reported with its reason and the
dealer's explanation, and the exit status is non-zero if anything failed. The scenarios
and their run are :mod:`arena.cli._check_scenarios`, imported only when the command runs.
"""

from __future__ import annotations

import random
from pathlib import Path

import click

from arena.cli._options import SECONDS, STARTUP_TIMEOUT
from arena.cli._sandbox import sandbox_option


@click.command("check-bot")
@click.argument("bot")
@click.option(
    "--timeout",
    "action_timeout",
    type=SECONDS,
    default=2.0,
    show_default=True,
    help="Seconds per decision.",
)
@click.option("--startup-timeout", type=SECONDS, default=STARTUP_TIMEOUT, show_default=True)
@click.option(
    "--seed",
    type=int,
    default=random.Random().randrange(1 << 30),
    help="Seed for the scenarios' decks.",
)
@click.option(
    "--logs",
    "log_dir",
    type=click.Path(path_type=Path),
    default=Path("runs/check-bot"),
    show_default=True,
)
@sandbox_option
def command(
    bot: str, action_timeout: float, startup_timeout: float, seed: int, log_dir: Path, sandbox: str
) -> None:
    """Check BOT (`builtin:NAME`, `HOST:PORT`, "COMMAND" or a bot folder) against every kind of decision.

    A bot folder (one with a bot.toml, see `arena new-bot`) is built first when its
    build output is missing or older than its sources.

    Scenarios: each structure, the draw, all-ins and side pots, antes and Jackpots,
    the joker, showdown and hand end, and an unearned Fault message. Exit status 1 if
    the bot faulted anywhere.
    """
    from arena.cli._check_scenarios import check  # Trio, the dealer: only when it runs

    check(bot, action_timeout, startup_timeout, seed, log_dir, sandbox)
