"""The leaderboard: incremental Elo, the batch fit with intervals, and mbb/hand with intervals.

The batch fit counts every duplicate block (every hand, without duplicate dealing) as
one game between each pair at the table, scored by its margin
(:func:`arena.ratings.margin_results`): the rating follows how much a bot wins, with the
card luck cancelled by the duplicate rotation, and many games give tight intervals.

Computed from the store alone, so ``arena ratings`` shows the same figures as the end
of a tournament, across every tournament recorded for a game type.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena.engine import ForcedBets, GameConfig, JokerMode, Opening
from arena.ratings import (
    MatchChips,
    PairResult,
    Rating,
    bot_win_rates,
    chip_los_matrix,
    fit_ratings,
    margin_results,
    pair_win_rates,
    pairwise_results,
)
from arena.stats import WinRate
from arena.tournament._store import MatchRow, Store


def absent_losses(bots: list[str], absent: set[str]) -> list[PairResult]:
    """A bot that was not there at the end of a cut-short match lost to everyone who was.

    Without this a bot that never answers would score draws (0 chips each) and rank
    above bots that played and lost. Absent bots draw with each other. Weights as in
    :func:`arena.ratings.pairwise_results`: the table counts as one game per bot.
    """
    if not absent or len(bots) < 2:
        return []
    weight = 1.0 / (len(bots) - 1)
    results = []
    for i, a in enumerate(bots):
        for b in bots[i + 1 :]:
            if a in absent or b in absent:
                score = 0.5 if (a in absent) == (b in absent) else (0.0 if a in absent else 1.0)
                results.append(PairResult(a, b, score, weight))
    return results


def match_results(chips: dict[str, int], absent: set[str]) -> list[PairResult]:
    """One match as pairwise results for Elo: by chips among those present, losses for the absent."""
    present = {bot: value for bot, value in chips.items() if bot not in absent}
    results = pairwise_results(present) if len(present) > 1 else []
    return results + absent_losses(list(chips), absent)


def game_type_of(config: GameConfig) -> str:
    """The label ratings are kept under: the structure, plus what changes the game."""
    parts = [config.structure.value]
    if config.forced_bets is ForcedBets.ANTES:
        parts.append("jackpots" if config.opening is Opening.JACKS_OR_BETTER else "antes")
    if config.joker is not JokerMode.OFF:
        parts.append(f"joker_{config.joker.value}")
    if config.max_draw != 5:
        parts.append(f"draw{config.max_draw}")
    return "+".join(parts)


@dataclass(frozen=True)
class Standing:
    """One bot's line on the leaderboard; every estimate carries its 95% interval."""

    bot: str
    elo: float
    fit: Rating
    win_rate: WinRate
    matches: int
    hands: int
    faults: int


@dataclass(frozen=True)
class Standings:
    game_type: str
    rows: tuple[Standing, ...]
    los: dict[tuple[str, str], float]
    matches: int
    pairs: dict[tuple[str, str], WinRate]


def standings_from_rows(
    rows: list[MatchRow],
    game_type: str,
    elo: dict[str, float],
    *,
    anchor: str | None = None,
    anchor_rating: float = 1500.0,
) -> Standings:
    """Fit and tabulate the given match rows (one game type)."""
    results = []
    chips: list[MatchChips] = []
    played: dict[str, int] = {}
    hands: dict[str, int] = {}
    faults: dict[str, int] = {}
    for row in rows:
        # every duplicate block (or hand) is a game scored by its margin (see margin_results)
        units = min((len(seat.unit_chips) for seat in row.seats), default=0)
        for unit in range(units):
            by_bot = {seat.bot: seat.unit_chips[unit] for seat in row.seats}
            results.extend(
                margin_results(by_bot, big_blind=row.big_blind, hands=row.duplicate_block)
            )
        if not units:
            results.extend(pairwise_results({seat.bot: seat.chips for seat in row.seats}))
        if row.reason != "completed":
            gone = {seat.bot for seat in row.seats if seat.sat_out or seat.forfeited}
            results.extend(absent_losses([seat.bot for seat in row.seats], gone))
        chips.append(
            MatchChips(
                bot_chips={seat.bot: list(seat.unit_chips) for seat in row.seats},
                big_blind=row.big_blind,
                hands_per_unit=row.duplicate_block,
            )
        )
        for seat in row.seats:
            played[seat.bot] = played.get(seat.bot, 0) + 1
            hands[seat.bot] = hands.get(seat.bot, 0) + seat.hands
            faults[seat.bot] = faults.get(seat.bot, 0) + seat.faults
    if anchor is not None and anchor not in played:
        anchor = None
    fit = fit_ratings(results, anchor=anchor, anchor_rating=anchor_rating) if results else {}
    rates = bot_win_rates(chips) if chips else {}
    table = [
        Standing(
            bot=bot,
            elo=elo.get(bot, float("nan")),
            fit=fit[bot],
            win_rate=rates[bot],
            matches=played[bot],
            hands=hands[bot],
            faults=faults[bot],
        )
        for bot in fit
    ]
    table.sort(key=lambda s: -s.fit.elo)
    return Standings(
        game_type,
        tuple(table),
        chip_los_matrix(chips) if chips else {},
        len(rows),
        pair_win_rates(chips) if chips else {},
    )


def compute_standings(
    store: Store,
    game_type: str,
    *,
    tournament: str | None = None,
    anchor: str | None = None,
    anchor_rating: float = 1500.0,
) -> Standings:
    """The leaderboard of a game type from every stored match (or one tournament's)."""
    rows = store.match_rows(game_type=game_type, tournament=tournament)
    return standings_from_rows(
        rows,
        game_type,
        store.current_ratings("elo", game_type),
        anchor=anchor,
        anchor_rating=anchor_rating,
    )
