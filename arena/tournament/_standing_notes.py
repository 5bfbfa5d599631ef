"""What the standings say beside their figures (issue 21 item 3): honest, not just numbers.

- A figure whose interval cannot be estimated (no units, one unit, or units that all
  agree) shows "too few hands" instead of ``± ∞`` or ``± 0`` (:func:`figure`); the
  anchor's Elo, pinned by definition, shows as the anchor.
- A bot with no hand played (every match a forfeit: it never started) is not ranked;
  :func:`did_not_play_reasons` says why, from the forfeits' stored start-up errors.
- A tournament with matches still to play (interrupted, or forfeits that resume tries
  again) is named with its count (:func:`unfinished_notes`).

The terminal's tables (``arena tournament run``, ``arena ratings``) and the HTML report
read these same functions, so they say the same thing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Sequence
from typing import Any

from arena.store._schema import NOT_STARTED
from arena.store._store import Store
from arena.text import escape_untrusted

TOO_FEW = "too few hands"
"""Shown in place of an interval that cannot be estimated."""

NO_HANDS = "no hands played"
"""A bot's reason for not playing when no start-up error is stored."""


def has_interval(half: float) -> bool:
    """Whether a 95% half-width is an interval to show (finite and above zero)."""
    return math.isfinite(half) and half > 0


def figure(value: float, half: float, *, signed: bool = False, anchor: bool = False) -> str:
    """``"1140 ± 45"``; ``"1200 (anchor)"`` for the pinned bot; else ``"+0 (too few hands)"``."""
    shown = f"{value:+.0f}" if signed else f"{value:.0f}"
    if anchor:
        return f"{shown} (anchor)"
    return f"{shown} ± {half:.0f}" if has_interval(half) else f"{shown} ({TOO_FEW})"


def printable_reason(text: str) -> str:
    """A bot's name or start-up error on one line, every control character escaped."""
    return escape_untrusted(text, one_line=True)


def _first_reasons(summaries: Iterable[Any], bots: Sequence[str]) -> dict[str, str]:
    """Each of ``bots``' first stored start-up error among the forfeits' summaries."""
    found: dict[str, str] = {}
    for summary in summaries:
        stored = summary.get("not_started") if isinstance(summary, dict) else None
        if isinstance(stored, dict):
            for bot in bots:
                if bot not in found and isinstance(stored.get(bot), str):
                    found[bot] = stored[bot]
    return {bot: found.get(bot, NO_HANDS) for bot in bots}


def did_not_play_reasons(
    store: Store, game_type: str, tournament: str | None, bots: Sequence[str]
) -> dict[str, str]:
    """Why each of ``bots`` (no hand played) did not play: its start-up error, stored with
    its forfeits, else "no hands played". Reads only the forfeits' rows."""
    if not bots:
        return {}
    query = (
        "SELECT m.summary_json FROM matches m JOIN tournaments t ON t.id = m.tournament_id "
        "WHERE m.game_type = ? AND m.reason = ?" + (" AND t.name = ?" if tournament else "")
    )
    args = [game_type, NOT_STARTED] + ([tournament] if tournament else [])
    with store._read() as db:
        texts = [row[0] for row in db.execute(query + " ORDER BY m.id", args).fetchall()]
    summaries = []
    for text in texts:
        try:
            summaries.append(json.loads(text))
        except ValueError:
            continue
    return _first_reasons(summaries, bots)


def reasons_from_rows(rows: Iterable[Any], bots: Sequence[str]) -> dict[str, str]:
    """:func:`did_not_play_reasons` from match rows already read (the report's)."""
    return _first_reasons((row.summary for row in rows if row.reason == NOT_STARTED), bots)


def unfinished_notes(
    store: Store, game_type: str | None = None, tournaments: Sequence[str] = ()
) -> list[str]:
    """``"unfinished: NAME: 10 of 36 matches played (5 not started)"`` for each tournament
    (those named, else every one with a match of ``game_type``) still to be finished."""
    query = (
        "SELECT t.name, (SELECT count(*) FROM scheduled_matches s WHERE s.tournament_id = t.id),"
        " (SELECT count(*) FROM matches m WHERE m.tournament_id = t.id),"
        " (SELECT count(*) FROM matches m WHERE m.tournament_id = t.id AND m.reason = ?)"
        " FROM tournaments t WHERE t.status <> 'finished'"
    )
    args: list[Any] = [NOT_STARTED]
    if game_type is not None:
        query += (
            " AND EXISTS (SELECT 1 FROM matches m WHERE m.tournament_id = t.id AND m.game_type = ?)"
        )
        args.append(game_type)
    with store._read() as db:
        rows = db.execute(query + " ORDER BY t.id", args).fetchall()
    notes = []
    for name, total, recorded, forfeits in rows:
        if (tournaments and name not in tournaments) or recorded - forfeits >= total:
            continue  # every match played: finished, whatever its status says
        note = f"unfinished: {name}: {recorded - forfeits} of {total} matches played"
        notes.append(note + (f" ({forfeits} not started)" if forfeits else ""))
    return notes
