"""``arena match``: one match between bots given by command, address or built-in name.

This module is what ``arena match --help`` and its usage errors need: the options, light
to import; playing the match (Trio, the dealer, the live page) is :mod:`arena.cli._match_play`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arena.cli._dial_in import dial_in_options
from arena.cli._options import (
    ACTION_TIMEOUT,
    FAULT_LIMIT,
    HANDS_PER_MATCH,
    HELLO_TIMEOUT,
    ON_FAULT_LIMIT,
    ON_FAULT_LIMITS,
    SECONDS,
    SECONDS_OR_ZERO,
    STACK,
    STARTUP_TIMEOUT,
    TIME_BANK,
    WALL_BUDGET,
    Whole,
)
from arena.cli._sandbox import sandbox_option
from arena.cli._watch import watch_option
from arena.engine._config import MAX_CHIPS, GameConfig, JokerMode, Structure

if TYPE_CHECKING:
    from arena.cli._dial_in import DialIn


_GAME = GameConfig()
"""Where the game options' defaults come from: the engine's own."""


def game_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The game settings of `arena match`."""
    options = [
        click.option(
            "--structure",
            type=click.Choice([s.value for s in Structure]),
            default=_GAME.structure.value,
            show_default=True,
        ),
        click.option("--small-blind", type=int, default=None, help="Default: half the big blind."),
        click.option("--big-blind", type=int, default=_GAME.big_blind, show_default=True),
        click.option("--ante", type=int, default=_GAME.ante, show_default=True),
        click.option(
            "--max-draw", type=click.IntRange(3, 5), default=_GAME.max_draw, show_default=True
        ),
        click.option(
            "--joker",
            type=click.Choice([j.value for j in JokerMode]),
            default=_GAME.joker.value,
            show_default=True,
        ),
        click.option(
            "--stack",
            type=click.IntRange(1, MAX_CHIPS),
            default=STACK,
            show_default=True,
            help="Chips each seat starts every hand with.",
        ),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@click.command("match")
@click.argument("bots", nargs=-1, required=True)
@game_options
@click.option(
    "--hands",
    type=Whole("check_hands"),
    default=HANDS_PER_MATCH,
    show_default=True,
)
@click.option(
    "--seed",
    type=Whole("check_seed"),
    default=None,
    help="Deck seed, 0 to 2**63-1; default: drawn from the CSPRNG and recorded.",
)
@click.option(
    "--duplicate/--no-duplicate",
    default=False,
    show_default=True,
    help="Replay each deck with the seats rotated through every position.",
)
@click.option(
    "--timeout",
    "action_timeout",
    type=SECONDS,
    default=ACTION_TIMEOUT,
    show_default=True,
    help="Seconds per decision (R23).",
)
@click.option(
    "--time-bank",
    type=SECONDS_OR_ZERO,
    default=TIME_BANK,
    show_default=True,
    help="Seconds per match, spent when a decision overruns.",
)
@click.option(
    "--wall-budget",
    type=SECONDS_OR_ZERO,
    default=WALL_BUDGET,
    show_default=True,
    help="Seconds per match a launched bot may take past --timeout beyond twice its CPU; "
    "then it sits out.",
)
@click.option(
    "--fault-limit",
    type=Whole("check_fault_limit"),
    default=FAULT_LIMIT,
    show_default=True,
    help="Faults before R25 applies (0: no limit).",
)
@click.option(
    "--on-fault-limit",
    type=click.Choice(ON_FAULT_LIMITS),
    default=ON_FAULT_LIMIT,
    show_default=True,
)
@click.option(
    "--startup-timeout",
    type=SECONDS,
    default=STARTUP_TIMEOUT,
    show_default=True,
    help="Seconds for a launched bot to become healthy.",
)
@click.option(
    "--hello-timeout",
    type=SECONDS,
    default=HELLO_TIMEOUT,
    show_default=True,
    help="Seconds from MatchStart to the bot's Hello; a bot that misses it gets a TIMEOUT fault.",
)
@click.option(
    "--memory-limit-mb",
    type=click.IntRange(1),
    default=None,
    help="Cap each launched bot's address space (prlimit --as); a Python gRPC bot needs ~400 MB.",
)
@click.option(
    "--cpu-seconds",
    type=click.IntRange(1),
    default=None,
    help="Cap each launched bot's CPU time (prlimit --cpu).",
)
@sandbox_option
@watch_option
@click.option("--no-plugins", is_flag=True, help="Do not autoload third-party plugins.")
@dial_in_options
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path),
    default=Path("runs"),
    show_default=True,
    help="Where the match folder is written.",
)
def command(
    bots: tuple[str, ...],
    structure: str,
    small_blind: int | None,
    big_blind: int,
    ante: int,
    max_draw: int,
    joker: str,
    stack: int,
    hands: int,
    seed: int | None,
    duplicate: bool,
    action_timeout: float,
    time_bank: float,
    wall_budget: float,
    fault_limit: int,
    on_fault_limit: str,
    startup_timeout: float,
    hello_timeout: float,
    memory_limit_mb: int | None,
    cpu_seconds: int | None,
    sandbox: str,
    watch: str | None,
    no_plugins: bool,
    out_dir: Path,
    dial_in: DialIn,
) -> None:
    """Play a match between BOTS (2-7), each `[NAME=]builtin:POLICY`, `[NAME=]HOST:PORT` or `[NAME=]"COMMAND"`.

    A command is started with $ARENA_BOT_ADDRESS set to where it must listen ({address}
    and {port} in the command are replaced too). `[NAME=]remote:TOKEN_NAME` is a bot that
    dials in at --listen (a token from `arena bots add`). Records go to OUT/<match id>/.
    """
    options = dict(locals())  # every option, by name
    from arena.cli._match_play import play  # Trio, the dealer: only when it runs

    play(**options)
