"""``arena ratings --system NAME``: the stored matches rated by a plugin's rating system.

Rating systems come from the ``arena_rating_systems`` hook (the built-in ``elo`` and
``bt-fit``, and any an installed plugin adds, such as a TrueSkill or a Glicko). Each
is handed every stored match of a game type as pairwise results, in the order the
matches were recorded: by chips among the bots present, and a loss to everyone present
for a bot absent at the end of a match cut short, exactly as the live Elo sees them.
"""

from __future__ import annotations

from collections.abc import Mapping

import click

from arena.plugins import PluginError, RatingSystem, get_plugin_manager, rating_systems
from arena.ratings import PairResult, Rating
from arena.tournament import Store
from arena.tournament._standings import match_results


def pick_system(name: str, *, no_plugins: bool) -> RatingSystem:
    """The rating system called ``name``; an unknown name is refused, listing the known ones."""
    try:
        pm = get_plugin_manager(autoload=not no_plugins)
    except PluginError as error:
        raise click.ClickException(str(error)) from None
    systems = rating_systems(pm)
    if name not in systems:
        known = ", ".join(sorted(systems)) or "none"
        raise click.BadParameter(
            f"no plugin provides a rating system {name!r}; rating systems: {known}",
            param_hint="'--system'",
        )
    return systems[name]


def stored_pair_results(
    store: Store, game_type: str, tournament: str | None = None
) -> tuple[list[PairResult], int]:
    """Every stored match of ``game_type`` as pairwise results, in recorded order, and the
    number of matches."""
    results: list[PairResult] = []
    rows = store.match_rows(game_type=game_type, tournament=tournament)
    for row in rows:
        chips = {seat.bot: seat.chips for seat in row.seats}
        absent = set()
        if row.reason != "completed":
            absent = {seat.bot for seat in row.seats if seat.sat_out or seat.forfeited}
        results.extend(match_results(chips, absent))
    return results, len(rows)


def ranked(ratings: Mapping[str, float | Rating]) -> list[tuple[str, str]]:
    """Bots by rating, best first, each with its rating as shown ("1520 ± 40", or "1520")."""
    from arena.tournament._standing_notes import figure

    def value(item: tuple[str, float | Rating]) -> float:
        rating = item[1]
        return rating.elo if isinstance(rating, Rating) else float(rating)

    shown = []
    for bot, rating in sorted(ratings.items(), key=lambda item: (-value(item), item[0])):
        if isinstance(rating, Rating):
            shown.append((bot, figure(rating.elo, rating.ci95)))  # "too few hands": no ± ∞/0
        else:
            shown.append((bot, f"{float(rating):.0f}"))
    return shown
