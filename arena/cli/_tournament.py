"""``arena tournament run|resume`` and ``arena ratings``: competitions and the standing leaderboard."""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable
from pathlib import Path

import click
import trio
from rich.console import Console, Group
from rich.live import Live
from rich.progress_bar import ProgressBar
from rich.table import Table as RichTable
from rich.text import Text

from arena.plugins import DriverContext, PluginError, get_plugin_manager, open_driver
from arena.tournament import (
    BotEntry,
    Progress,
    Standings,
    Store,
    StoreError,
    TournamentConfig,
    TournamentConfigError,
    TournamentError,
    compute_standings,
    game_type_of,
    load_tournament,
    run_tournament,
)

DEFAULT_DATABASE = Path("arena-data/arena.db")


def _interval(value: float, half: float, *, signed: bool = False) -> str:
    shown = f"{value:+.0f}" if signed else f"{value:.0f}"
    return f"{shown} ± {half:.0f}" if math.isfinite(half) else f"{shown} ± ∞"


def standings_table(standings: Standings, title: str, *, live_elo: bool = False) -> RichTable:
    """The leaderboard: batch-fit Elo and mbb/hand, each with its 95% interval.

    ``live_elo`` adds the incremental Elo, which has no interval of its own.
    """
    table = RichTable(title=title)
    table.add_column("#", justify="right")
    table.add_column("bot")
    table.add_column("Elo (95% CI)", justify="right")
    if live_elo:
        table.add_column("live Elo (no CI)", justify="right")
    table.add_column("mbb/hand (95% CI)", justify="right")
    table.add_column("matches", justify="right")
    table.add_column("hands", justify="right")
    table.add_column("faults", justify="right")
    for rank, row in enumerate(standings.rows, 1):
        cells = [str(rank), row.bot, _interval(row.fit.elo, row.fit.ci95)]
        if live_elo:
            cells.append("-" if math.isnan(row.elo) else f"{row.elo:.0f}")
        cells += [
            _interval(row.win_rate.mbb_per_hand, row.win_rate.ci95, signed=True),
            str(row.matches),
            str(row.hands),
            str(row.faults),
        ]
        table.add_row(*cells)
    return table


def _matrix(standings: Standings, title: str, cell: Callable[[str, str], str | None]) -> RichTable:
    """A bot-by-bot table, row bot against column bot, best first."""
    bots = [row.bot for row in standings.rows]
    table = RichTable(title=title)
    table.add_column("")
    for bot in bots:
        table.add_column(bot, justify="right")
    for a in bots:
        table.add_row(a, *(("" if a == b else cell(a, b) or "") for b in bots))
    return table


def pairs_table(standings: Standings) -> RichTable:
    """Head to head: each pair's mbb/hand with its 95% interval (duplicate blocks as units)."""

    def cell(a: str, b: str) -> str | None:
        rate = standings.pairs.get((a, b))
        return None if rate is None else _interval(rate.mbb_per_hand, rate.ci95, signed=True)

    return _matrix(standings, "head to head: row bot's mbb/hand against column bot (95% CI)", cell)


def los_table(standings: Standings) -> RichTable:
    """Likelihood of superiority from chip results, row bot over column bot."""

    def cell(a: str, b: str) -> str | None:
        value = standings.los.get((a, b))
        return None if value is None else f"{value:.2f}"

    return _matrix(standings, "likelihood of superiority (chips): row beats column", cell)


def _plugin_manager(no_plugins: bool):
    try:
        return get_plugin_manager(autoload=not no_plugins)
    except PluginError as error:
        raise click.ClickException(str(error)) from None


def _opener(pm, config: TournamentConfig) -> Callable:
    def open_bot_entry(entry: BotEntry):
        context = DriverContext(
            seed=config.seed,
            log_dir=config.output / config.name / "bots",
            startup_timeout=config.timeouts.startup,
            options={"workdir": entry.workdir or config.workdir},
        )
        return open_driver(pm, entry, context)

    return open_bot_entry


def play_tournament(
    config: TournamentConfig, *, resume: bool, no_plugins: bool, console: Console
) -> Standings:
    """Run (or resume) ``config`` with a live leaderboard; return the final standings."""
    pm = _plugin_manager(no_plugins)
    game_type = game_type_of(config.game)
    try:
        store = Store.open(config.database)
    except StoreError as error:
        raise click.ClickException(str(error)) from None
    with store:
        state = {"last": 0.0, "standings": None}

        def leaderboard(progress: Progress) -> Group:
            bar = RichTable.grid(padding=(0, 1))
            bar.add_row(
                Text(config.name, style="bold"),
                ProgressBar(total=max(progress.total, 1), completed=progress.done, width=40),
                Text(f"{progress.done}/{progress.total} matches"),
            )
            standings = state["standings"]
            if standings is None or not standings.rows:
                return Group(bar)
            return Group(
                bar, standings_table(standings, f"standings ({game_type}, this tournament)")
            )

        with Live(
            Text("starting bots..."), console=console, transient=True, refresh_per_second=4
        ) as live:

            def on_progress(progress: Progress) -> None:
                for note in progress.notes:
                    console.print(f"note: {note}")
                progress.notes = []
                now = time.monotonic()
                if progress.done and (now - state["last"] > 1.0 or progress.done == progress.total):
                    state["last"] = now
                    state["standings"] = compute_standings(
                        store,
                        game_type,
                        tournament=config.name,
                        anchor=config.ratings.anchor,
                        anchor_rating=config.ratings.anchor_rating,
                    )
                live.update(leaderboard(progress))

            try:
                progress = trio.run(
                    lambda: run_tournament(
                        config,
                        store,
                        resume=resume,
                        hooks=pm.hook,
                        on_progress=on_progress,
                        open_driver=_opener(pm, config),
                    )
                )
            except (TournamentError, StoreError) as error:
                raise click.ClickException(str(error)) from None
        overall = compute_standings(
            store,
            game_type,
            anchor=config.ratings.anchor,
            anchor_rating=config.ratings.anchor_rating,
        )
        pm.hook.arena_tournament_finished(name=config.name, standings=list(overall.rows))
        console.print(
            f"{config.name}: {progress.done}/{progress.total} matches recorded in {config.database}"
        )
        return overall


def _load(path: Path) -> TournamentConfig:
    try:
        return load_tournament(path)
    except TournamentConfigError as error:
        raise click.ClickException(str(error)) from None


@click.group("tournament")
def tournament() -> None:
    """Run tournaments from a TOML file (see examples_tournaments/)."""


def _play_and_show(file: Path, *, resume: bool, no_plugins: bool) -> None:
    config = _load(file)
    console = Console()
    standings = play_tournament(config, resume=resume, no_plugins=no_plugins, console=console)
    title = f"leaderboard: {standings.game_type}, all tournaments in {config.database.name}"
    console.print(standings_table(standings, title))


@tournament.command("run")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--no-plugins", is_flag=True, help="Do not autoload third-party plugins (reproducible runs)."
)
def run_command(file: Path, no_plugins: bool) -> None:
    """Schedule and play the tournament in FILE, then print the leaderboard."""
    _play_and_show(file, resume=False, no_plugins=no_plugins)


@tournament.command("resume")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--no-plugins", is_flag=True, help="Do not autoload third-party plugins.")
def resume_command(file: Path, no_plugins: bool) -> None:
    """Finish an interrupted tournament: play only the matches with no recorded result."""
    _play_and_show(file, resume=True, no_plugins=no_plugins)


@click.command("ratings")
@click.option(
    "--db", "database", type=click.Path(path_type=Path), default=DEFAULT_DATABASE, show_default=True
)
@click.option(
    "--game-type",
    default=None,
    help="Only this game type (e.g. fixed_limit); default: every one stored.",
)
@click.option(
    "--tournament", "tournament_name", default=None, help="Only this tournament's matches."
)
@click.option("--anchor", default=None, help="Pin this bot's rating (with --anchor-rating).")
@click.option("--anchor-rating", type=float, default=1000.0, show_default=True)
@click.option(
    "--los", "show_los", is_flag=True, help="Also print the likelihood-of-superiority matrix."
)
@click.option(
    "--pairs", "show_pairs", is_flag=True, help="Also print head-to-head mbb/hand per pair."
)
@click.option(
    "--live-elo", is_flag=True, help="Also show the incremental Elo (it has no interval)."
)
def ratings_command(
    database: Path,
    game_type: str | None,
    tournament_name: str | None,
    anchor: str | None,
    anchor_rating: float,
    show_los: bool,
    show_pairs: bool,
    live_elo: bool,
) -> None:
    """Print the leaderboard from the database: Elo and mbb/hand, every figure with its interval."""
    if not database.exists():
        raise click.ClickException(
            f"{database}: no such database (run a tournament first, or pass --db)"
        )
    try:
        store = Store.open(database)
    except StoreError as error:
        raise click.ClickException(str(error)) from None
    console = Console()
    with store:
        types = [game_type] if game_type else sorted({row.game_type for row in store.match_rows()})
        if not types:
            raise click.ClickException(f"{database}: no matches recorded yet")
        for kind in types:
            standings = compute_standings(
                store, kind, tournament=tournament_name, anchor=anchor, anchor_rating=anchor_rating
            )
            if not standings.rows:
                console.print(f"{kind}: no matches")
                continue
            console.print(
                standings_table(
                    standings, f"{kind}: {standings.matches} matches", live_elo=live_elo
                )
            )
            if show_pairs:
                console.print(pairs_table(standings))
            if show_los:
                console.print(los_table(standings))


def demo_config(file: Path, name: str | None) -> TournamentConfig:
    """The demo tournament, renamed so every run adds a new tournament to the stored pool."""
    config = _load(file)
    return dataclasses.replace(config, name=name or time.strftime(f"{config.name}-%Y%m%d-%H%M%S"))


commands = (tournament, ratings_command)
