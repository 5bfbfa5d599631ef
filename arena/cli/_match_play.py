"""Playing ``arena match``: its bots started, the match under Trio, its records and summary.

The command and its options are :mod:`arena.cli._match` (light, for its help).
"""

from __future__ import annotations

import contextlib
import math
import secrets
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import click
import trio
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable

from arena.cli._bots import BotSpec, parse_bot_spec, unique_names
from arena.cli._dial_in import (
    DialIn,
    check_remote_seats,
    open_dial_in,
    remote_names,
    remote_opener,
    wait_for_bots,
)
from arena.cli._errors import user_errors
from arena.cli._fault_summary import match_troubles, trouble_lines
from arena.cli._replays import write_match_replay
from arena.cli._sandbox import checked_sandbox, warn_exposed
from arena.cli._watch import live_view
from arena.dealer import (
    BotDriver,
    BotStartError,
    DealKeyError,
    MatchSettings,
    OnFaultLimit,
    run_duplicate_match,
    run_match,
    sandbox_of,
    with_seed,
)
from arena.dealer._records import MatchRecorder
from arena.engine import ConfigError, GameConfig, Hand, JokerMode, Structure
from arena.server import ArenaServer
from arena.text import escape_untrusted
from arena.tournament import _bounds
from arena.tournament._standing_notes import figure


def terminal_safe(text: str) -> str:
    """``text`` with control characters written as escapes (ESC as ``\\x1b``), newlines kept.

    Bot output (stderr tails, decision ids) reaches the terminal only through this.
    """
    return escape_untrusted(text, keep_newlines=True)


async def open_drivers(
    specs: list[BotSpec],
    stack: contextlib.AsyncExitStack,
    *,
    log_dir: Path,
    startup_timeout: float,
    seed: int | None,
    no_plugins: bool = False,
    options: dict[str, object] | None = None,
    server: ArenaServer | None = None,
) -> list[BotDriver]:
    """Start or reach every bot through the driver plugins, each healthy before play;
    ``remote`` bots are ``server``'s. The exit stack stops them all at the end.
    """
    from arena.plugins import (
        DriverContext,
        NoDriverError,
        PluginError,
        get_plugin_manager,
        open_driver,
    )

    try:
        pm = get_plugin_manager(autoload=not no_plugins)
    except PluginError as error:
        raise click.ClickException(str(error)) from None
    context = DriverContext(
        seed=seed, log_dir=log_dir, startup_timeout=startup_timeout, options=options or {}
    )
    drivers: list[BotDriver] = []
    opener = remote_opener(server, partial(open_driver, pm, context=context))
    for spec in specs:
        try:
            driver = await stack.enter_async_context(opener(spec))
        except (BotStartError, NoDriverError) as error:
            raise click.ClickException(
                terminal_safe(f"bot {spec.name!r} ({spec.target}) did not start: {error}")
            ) from None
        drivers.append(driver)
    return drivers


def play(
    *,
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
    """Play the match `arena match` was given: bots, settings and records, checked first."""
    specs = _checked_bots(bots, sandbox)
    check_remote_seats(specs, duplicate=duplicate, fix="leave out --duplicate")
    config = _checked_game(stack, structure, small_blind, big_blind, ante, max_draw, joker)
    match_id = datetime.now(UTC).strftime("match-%Y%m%d-%H%M%S-") + secrets.token_hex(2)
    given = MatchSettings(
        config=config,
        hands=hands,
        starting_stack=stack,
        seed=seed,
        duplicate=duplicate,
        action_timeout=action_timeout,
        time_bank=time_bank,
        wall_budget=wall_budget,
        fault_limit=fault_limit,
        on_fault_limit=OnFaultLimit(on_fault_limit),
        hello_timeout=hello_timeout,
        match_id=match_id,
    )
    settings = _seeded(given)  # drawn now: log.jsonl has them before the first hand
    folder = _records_folder(out_dir / match_id)
    limits: dict[str, object] = {"memory_limit_mb": memory_limit_mb, "cpu_seconds": cpu_seconds}
    limits |= {"sandbox": sandbox, "hidden_paths": (str(out_dir.resolve()),)}  # all records
    with user_errors(lambda: f"interrupted: the hands played so far are recorded in {folder}"):
        summary = trio.run(
            _watched, specs, settings, folder, startup_timeout, limits, no_plugins, watch, dial_in
        )
    print_summary(summary, folder)
    for line in trouble_lines(match_troubles(summary, folder)):  # issue 21 item 2
        click.echo(line)
    click.echo(write_match_replay(folder))


def build_config(
    structure: str, small_blind: int | None, big_blind: int, ante: int, max_draw: int, joker: str
) -> GameConfig:
    try:
        return GameConfig(
            structure=Structure(structure),
            small_blind=small_blind,
            big_blind=big_blind,
            small_bet=big_blind if structure == "fixed_limit" else None,
            ante=ante,
            max_draw=max_draw,
            joker=JokerMode(joker),
        )
    except ConfigError as error:
        raise click.UsageError(f"bad game setting {error}") from None


def _checked_bots(bots: tuple[str, ...], sandbox: str) -> list[BotSpec]:
    """The bots' specs, checked (and the sandbox layer) before anything starts."""
    checked_sandbox(sandbox)  # a layer that does not work is an error, not a downgrade
    if not 2 <= len(bots) <= 7:
        raise click.UsageError(f"a table seats 2 to 7 bots (R1); got {len(bots)}")
    return unique_names([parse_bot_spec(text, i) for i, text in enumerate(bots)])


def _checked_game(stack: int, *game: Any) -> GameConfig:
    """The game settings, and the stack checked against them."""
    config = build_config(*game)
    try:
        _bounds.check_stack(stack, config)
    except _bounds.BoundError as error:
        raise click.BadParameter(str(error), param_hint="'--stack'") from None
    return config


def _seeded(settings: MatchSettings) -> MatchSettings:
    """``settings`` with its seed and deal key; a bad ``$ARENA_DEAL_KEY`` is one line."""
    try:
        return with_seed(settings)
    except DealKeyError as error:
        raise click.ClickException(str(error)) from None


def _records_folder(folder: Path) -> Path:
    """Make the match's records folder before any bot starts: a folder that cannot be
    written is one line, not a match played for nothing."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise click.ClickException(
            f"cannot write the match records to {folder}: {error.strerror}"
        ) from None
    return folder


def _ignore(*_: object) -> None:
    """No one else to tell."""


async def _watched(
    specs: list[BotSpec],
    settings: MatchSettings,
    folder: Path,
    startup_timeout: float,
    limits: dict[str, object],
    no_plugins: bool,
    watch: str | None,
    dial_in: DialIn,
) -> dict:
    """The match, with the live page served beside it (same Trio run) under ``--watch``,
    once its remote bots have dialled in."""
    console = Console(stderr=True)
    remote = remote_names(specs)
    async with (
        open_dial_in(dial_in, remote, console) as server,
        live_view(watch, settings.match_id, console) as hub,
    ):
        if server is not None:  # one stream per table: every rotation plays at once
            tables = len(specs) if settings.duplicate else 1
            await wait_for_bots(server, dict.fromkeys(remote, tables), console)
        if hub is not None:
            hub.match_started(settings.match_id, [spec.name for spec in specs])
        feed = _ignore if hub is None else partial(hub.hand_finished, settings.match_id)
        summary = await _run(
            specs, settings, folder, startup_timeout, limits, no_plugins, feed, server
        )
        if hub is not None:
            rows = [{"name": s["name"], "chips_won": s["chips_won"]} for s in summary["seats"]]
            hub.match_finished(settings.match_id, rows)
        return summary


async def _run(
    specs: list[BotSpec],
    settings: MatchSettings,
    folder: Path,
    startup_timeout: float,
    limits: dict[str, object],
    no_plugins: bool,
    also_on_hand: Callable[[int, Hand, Sequence[int], Sequence[str]], None] = _ignore,
    server: ArenaServer | None = None,
) -> dict:
    recorder = MatchRecorder(folder, settings)
    console = Console(stderr=True)
    try:
        async with contextlib.AsyncExitStack() as stack:
            tables = []  # one set of bot instances per rotation with --duplicate (issue 9)
            for k in range(len(specs) if settings.duplicate else 1):
                copies = [spec.instance(k) for spec in specs]  # k > 0: own folder copies
                options = {key: value for key, value in limits.items() if value is not None}
                opened = await open_drivers(
                    copies, stack, log_dir=folder / "bots", startup_timeout=startup_timeout,
                    seed=settings.seed, no_plugins=no_plugins, options=options, server=server,
                )  # fmt: skip
                tables.append(opened)
            drivers = tables[0]
            warn_exposed(drivers, folder, duplicate=settings.duplicate)
            recorder.match_started(
                [d.name for d in drivers], settings.seed, sandbox=[sandbox_of(d) for d in drivers]
            )
            with Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=console,
                transient=True,
            ) as progress:
                task = progress.add_task("hands", total=settings.hands)

                def on_hand(number, hand, seats, names):
                    recorder.on_hand(number, hand, seats, names)
                    progress.update(task, completed=number)
                    also_on_hand(number, hand, seats, names)

                if settings.duplicate:
                    result = await run_duplicate_match(
                        tables, settings, on_hand=on_hand, on_fault=recorder.on_fault
                    )
                else:
                    result = await run_match(
                        drivers, settings, on_hand=on_hand, on_fault=recorder.on_fault
                    )
        block = len(specs) if settings.duplicate else 1
        return recorder.match_finished(result, duplicate_block=block)
    finally:
        recorder.close()


def print_summary(summary: dict, folder: Path) -> None:
    console = Console()
    table = RichTable(
        title=f"{summary['match_id']}: {summary['hands_played']} hands ({summary['reason']}), seed {summary['seed']}"
    )
    table.add_column("seat", justify="right")
    table.add_column("bot")
    table.add_column("chips won", justify="right")
    table.add_column("mbb/hand (95% CI)", justify="right")
    table.add_column("faults", justify="right")
    for seat in sorted(summary["seats"], key=lambda s: -s["chips_won"]):
        half = math.inf if seat["ci95"] is None else seat["ci95"]
        status = " (forfeited)" if seat["forfeited"] else " (sat out)" if seat["sat_out"] else ""
        table.add_row(
            str(seat["seat"]),
            seat["name"] + status,
            f"{seat['chips_won']:+d}",
            figure(seat["mbb_per_hand"], half, signed=True),  # "too few hands", not ± ∞
            str(seat["faults"]),
        )
    console.print(table)
    console.print(f"records: {folder}/ (log.jsonl, events.jsonl, hands.phhs, result.json)")
