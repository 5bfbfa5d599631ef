"""``arena ratings`` and the leaderboard tables: Elo and mbb/hand, every figure with its interval."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table as RichTable

from arena.tournament import Standings, Store, StoreError, compute_standings

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


commands = (ratings_command,)
