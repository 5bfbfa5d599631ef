"""``arena ratings`` and the leaderboard tables: Elo and mbb/hand, every figure with its interval.

Tables keep every bot's name whole (a long name folds onto a second line rather than
being cut, so "student-alice-1" and "student-alice-2" stay apart at 80 columns); the
head-to-head matrices use ranks as column keys and fall back to a list of pairs when
even that is wider than the terminal.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich import box
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

if TYPE_CHECKING:  # the store, the ratings and the plugins load when the command runs
    from arena.plugins import RatingSystem
    from arena.tournament import Standings, Store

DEFAULT_DATABASE = Path("arena-data/arena.db")


def database_option(_ctx: object, _param: object, value: str | Path) -> Path | str:
    """``--db``: a SQLite file, or a ``postgresql://`` URL kept as it is (issue 12)."""
    from arena.store._db import is_url

    return value if is_url(value) else Path(value)


DATABASE_HELP = "A SQLite file, or a postgresql:// URL."

db_option = click.option(
    "--db",
    "database",
    default=str(DEFAULT_DATABASE),
    show_default=True,
    callback=database_option,
    help=DATABASE_HELP,
)
"""``--db``: the store ``arena ratings`` and ``arena report`` read (a path or a URL)."""
DEFAULT_ANCHOR_RATING = 1000.0


def _interval(value: float, half: float, *, signed: bool = False, anchor: bool = False) -> str:
    """``"1140 ± 45"``, or "too few hands" where there is no interval (issue 21 item 3)."""
    from arena.tournament._standing_notes import figure

    return figure(value, half, signed=signed, anchor=anchor)


def _live_elo(value: float) -> str:
    """A live Elo cell: "-" when unrated; a figure beyond the rating bounds shows as the bound."""
    from arena.ratings import bounded_rating

    if not math.isfinite(value):
        return "-"
    return f"{bounded_rating(value, value):.0f}"


def _table(title: str) -> RichTable:
    # a light box: 2 columns of rule per cell instead of 3, so names get the width
    return RichTable(title=title, box=box.SIMPLE_HEAD, padding=(0, 1), collapse_padding=True)


def _name_column(table: RichTable, header: str = "bot") -> None:
    """A column of bot names: folded onto more lines when narrow, never cut short."""
    table.add_column(header, overflow="fold", no_wrap=False, min_width=8, ratio=1)


def _figure_column(table: RichTable, header: str) -> None:
    """A column of figures such as "1140 ± 45", kept on one line; "(95% CI)" heads a second line."""
    table.add_column(header.replace(" (", "\n("), justify="right", no_wrap=True)


def standings_table(standings: Standings, title: str, *, live_elo: bool = False) -> RichTable:
    """The leaderboard: batch-fit Elo and mbb/hand, each with its 95% interval.

    ``live_elo`` adds the incremental Elo, which has no interval of its own.
    """
    table = _table(title)
    table.add_column("#", justify="right", no_wrap=True)
    _name_column(table)
    _figure_column(table, "Elo (95% CI)")
    if live_elo:
        _figure_column(table, "live Elo (no CI)")
    _figure_column(table, "mbb/hand (95% CI)")
    for header in ("matches", "hands", "faults"):
        _figure_column(table, header)
    for rank, row in enumerate(standings.rows, 1):
        pinned = row.bot == standings.anchor
        elo = _interval(row.fit.elo, row.fit.ci95, anchor=pinned)
        cells: list[str | Text] = [str(rank), Text(row.bot), elo]
        if live_elo:
            cells.append(_live_elo(row.elo))
        cells += [
            _interval(row.win_rate.mbb_per_hand, row.win_rate.ci95, signed=True),
            str(row.matches),
            str(row.hands),
            str(row.faults),
        ]
        table.add_row(*cells)
    return table


def print_standings(
    console: Console,
    standings: Standings,
    title: str,
    *,
    unfinished: Sequence[str] = (),
    live_elo: bool = False,
) -> None:
    """The leaderboard as ``arena ratings`` and the end of a run print it: the unfinished
    tournaments first, then the table, then the bots that did not play and why."""
    from arena.tournament._standing_notes import printable_reason

    say = partial(console.print, markup=False, highlight=False)
    for line in unfinished:
        say(line)
    console.print(standings_table(standings, title, live_elo=live_elo))
    for bot, why in standings.did_not_play:
        say(f"did not play: {printable_reason(bot)} ({printable_reason(why)}); not ranked")


def _matrix(
    standings: Standings,
    title: str,
    cell: Callable[[str, str], str | None],
    *,
    header: str,
    width: int,
) -> RichTable:
    """A bot-by-bot table, row bot against column bot, best first; columns keyed by rank.

    When even rank-keyed columns do not fit in ``width``, a list of the pairs that met
    instead (each pair once, from the better-ranked bot's side).
    """
    bots = [row.bot for row in standings.rows]
    cells = {(a, b): cell(a, b) for a in bots for b in bots if a != b}
    cell_width = max((len(text) for text in cells.values() if text), default=1)
    longest = max((len(bot) for bot in bots), default=3)
    needed = min(longest, 24) + 6 + len(bots) * (max(cell_width, len(str(len(bots)))) + 2)
    if needed <= width:
        table = _table(title + " (columns: rank)")
        table.add_column("#", justify="right", no_wrap=True)
        _name_column(table)
        for rank in range(1, len(bots) + 1):
            table.add_column(str(rank), justify="right", no_wrap=True)
        for rank, a in enumerate(bots, 1):
            row = ["" if a == b else cells[(a, b)] or "" for b in bots]
            table.add_row(str(rank), Text(a), *row)
        return table
    table = _table(title)
    table.add_column("#", justify="right", no_wrap=True)
    _name_column(table)
    table.add_column("#", justify="right", no_wrap=True)
    _name_column(table, "against")
    _figure_column(table, header)
    for i, a in enumerate(bots):
        for j in range(i + 1, len(bots)):
            text = cells[(a, bots[j])]
            if text:
                table.add_row(str(i + 1), Text(a), str(j + 1), Text(bots[j]), text)
    return table


def pairs_table(standings: Standings, *, width: int = 80) -> RichTable:
    """Head to head: each pair's mbb/hand with its 95% interval (duplicate blocks as units)."""

    def cell(a: str, b: str) -> str | None:
        rate = standings.pairs.get((a, b))
        return None if rate is None else _interval(rate.mbb_per_hand, rate.ci95, signed=True)

    return _matrix(
        standings,
        "head to head: row bot's mbb/hand against column bot (95% CI)",
        cell,
        header="mbb/hand (95% CI)",
        width=width,
    )


def los_table(standings: Standings, *, width: int = 80) -> RichTable:
    """Likelihood of superiority from chip results, row bot over column bot."""

    def cell(a: str, b: str) -> str | None:
        value = standings.los.get((a, b))
        return None if value is None else f"{value:.2f}"

    return _matrix(
        standings,
        "likelihood of superiority (chips): row beats column",
        cell,
        header="LOS",
        width=width,
    )


def _rating_option(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    from arena.ratings import check_rating_setting

    if value is None:
        return None
    try:
        return check_rating_setting(value)
    except ValueError as error:
        raise click.BadParameter(str(error), ctx=ctx, param=param) from None


def _anchor_for(
    store: Store,
    kind: str,
    standings_bots: list[str],
    *,
    tournament: str | None,
    anchor: str | None,
    anchor_rating: float | None,
) -> tuple[str | None, float, str]:
    """The anchor to pin, its rating and a line saying where they come from."""
    from arena.tournament._standings import stored_anchor

    if anchor is not None:
        if anchor not in standings_bots:
            where = f" in tournament {tournament!r}" if tournament else ""
            raise click.ClickException(
                f"--anchor {anchor!r}: no rated bot of that name in {kind}{where}; "
                f"rated bots: {', '.join(sorted(standings_bots))}"
            )
        rating = DEFAULT_ANCHOR_RATING if anchor_rating is None else anchor_rating
        return anchor, rating, f"anchor: {anchor} = {rating:g} (--anchor)"
    stored = stored_anchor(store, kind, tournament)
    if anchor_rating is not None:
        rating = anchor_rating
    else:
        rating = stored.anchor_rating if stored is not None else DEFAULT_ANCHOR_RATING
    if stored is not None and stored.anchor is not None:
        if stored.anchor in standings_bots:
            return (
                stored.anchor,
                rating,
                f"anchor: {stored.anchor} = {rating:g} "
                f"(from tournament {stored.tournament!r}; --anchor to change)",
            )
        return (
            None,
            rating,
            (
                f"anchor: none, mean rating {rating:g} (tournament {stored.tournament!r}'s anchor "
                f"{stored.anchor!r} has no match here)"
            ),
        )
    return None, rating, f"anchor: none, mean rating {rating:g} (--anchor to pin a bot)"


@click.command("ratings")
@db_option
@click.option(
    "--game-type",
    default=None,
    help="Only this game type (e.g. fixed_limit); default: every one stored.",
)
@click.option(
    "--tournament", "tournament_name", default=None, help="Only this tournament's matches."
)
@click.option(
    "--anchor",
    default=None,
    help="Pin this bot's rating; default: the anchor of the latest tournament of the game type.",
)
@click.option(
    "--anchor-rating",
    type=float,
    default=None,
    callback=_rating_option,
    help=f"The anchor's rating (or the mean's); default: the tournament's, else {DEFAULT_ANCHOR_RATING:g}.",
)
@click.option(
    "--los", "show_los", is_flag=True, help="Also print the likelihood-of-superiority matrix."
)
@click.option(
    "--pairs", "show_pairs", is_flag=True, help="Also print head-to-head mbb/hand per pair."
)
@click.option(
    "--live-elo", is_flag=True, help="Also show the incremental Elo (it has no interval)."
)
@click.option(
    "--system",
    "system_name",
    default=None,
    metavar="NAME",
    help="Rate with this rating system from the plugins (arena_rating_systems: elo, bt-fit, "
    "or one a plugin adds) instead of the leaderboard.",
)
@click.option("--no-plugins", is_flag=True, help="With --system: only the built-in rating systems.")
def ratings_command(
    database: Path | str,
    game_type: str | None,
    tournament_name: str | None,
    anchor: str | None,
    anchor_rating: float | None,
    show_los: bool,
    show_pairs: bool,
    live_elo: bool,
    system_name: str | None,
    no_plugins: bool,
) -> None:
    """Print the leaderboard from the database: Elo and mbb/hand, every figure with its interval."""
    from arena.cli._rating_systems import pick_system
    from arena.tournament import Store, StoreError

    if isinstance(database, Path) and not database.is_file():
        raise click.ClickException(
            f"{database}: no such database (run a tournament first, or pass --db)"
        )
    system = None if system_name is None else pick_system(system_name, no_plugins=no_plugins)
    console = Console()
    try:
        with Store.open(database, create=False) as store:
            if system is not None:
                _print_system_ratings(console, store, system, game_type, tournament_name)
                return
            _print_ratings(
                console,
                store,
                game_type=game_type,
                tournament=tournament_name,
                anchor=anchor,
                anchor_rating=anchor_rating,
                show_los=show_los,
                show_pairs=show_pairs,
                live_elo=live_elo,
            )
    except (StoreError, sqlite3.Error, ValueError) as error:
        message = str(error) if isinstance(error, StoreError) else f"{database}: {error}"
        raise click.ClickException(f"{message} (is it a corrupt arena database?)") from None


def _game_types(store: Store, game_type: str | None) -> list[str]:
    """The game types to show: the one asked for, else every one stored."""
    types = [game_type] if game_type else sorted({row.game_type for row in store.match_rows()})
    if not types:
        raise click.ClickException(f"{store.path}: no matches recorded yet")
    return types


def _print_system_ratings(
    console: Console,
    store: Store,
    system: RatingSystem,
    game_type: str | None,
    tournament: str | None,
) -> None:
    """``--system``: one table per game type, the system's rating of each bot, best first."""
    from arena.cli._rating_systems import ranked, stored_pair_results

    for kind in _game_types(store, game_type):
        results, matches = stored_pair_results(store, kind, tournament)
        ratings = system.rate(results) if results else {}
        if not ratings:
            console.print(f"{kind}: no matches", markup=False, highlight=False)
            continue
        table = _table(f"{kind}: {matches} matches, rating system {system.name}")
        table.add_column("#", justify="right", no_wrap=True)
        _name_column(table)
        _figure_column(table, "rating")
        for rank, (bot, shown) in enumerate(ranked(ratings), 1):
            table.add_row(str(rank), Text(bot), shown)
        console.print(table)


def _print_ratings(
    console: Console,
    store: Store,
    *,
    game_type: str | None,
    tournament: str | None,
    anchor: str | None,
    anchor_rating: float | None,
    show_los: bool,
    show_pairs: bool,
    live_elo: bool,
) -> None:
    from arena.tournament import compute_standings
    from arena.tournament._standing_notes import unfinished_notes

    for kind in _game_types(store, game_type):
        unpinned = compute_standings(store, kind, tournament=tournament)
        if not unpinned.rows:
            console.print(f"{kind}: no matches", markup=False, highlight=False)
            continue
        bots = [row.bot for row in unpinned.rows]
        pinned, rating, note = _anchor_for(
            store, kind, bots, tournament=tournament, anchor=anchor, anchor_rating=anchor_rating
        )
        standings = compute_standings(
            store, kind, tournament=tournament, anchor=pinned, anchor_rating=rating
        )
        title = f"{kind}: {standings.matches} matches"
        unfinished = unfinished_notes(store, kind, [tournament] if tournament else [])
        print_standings(console, standings, title, unfinished=unfinished, live_elo=live_elo)
        console.print(note, markup=False, highlight=False)
        if show_pairs:
            console.print(pairs_table(standings, width=console.width))
        if show_los:
            console.print(los_table(standings, width=console.width))


commands = (ratings_command,)
