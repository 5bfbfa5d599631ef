"""What the report says of each bot beside its figures (issue 21 items 2 and 4).

A baseline (a ``builtin`` bot) and the anchor are marked; a bot's faults are counted by
reason, with the texts of its last few; the matches it did not start (with the start-up
error stored with the forfeit), the matches it was sat out of, and the end of its stderr
log where the records folder is on this machine (``<records>/bots/NAME.stderr.log``,
beside the match folders).

Everything here was written by a bot or names one, and the report is published: each
text is escaped (:func:`arena.text.escape_untrusted`: controls and bidi overrides become
visible escapes, the template escapes markup) and every card-like token is blotted out,
since a bot may print its own hidden cards into its stderr or an exception message.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from arena.sandbox._process import safe_name
from arena.store._queries import filters
from arena.store._schema import NOT_STARTED
from arena.store._store import MatchRow, Store
from arena.text import escape_untrusted

FAULT_TEXTS = 5
"""How many of a bot's latest faults the report quotes."""
STDERR_LINES = 20
STDERR_BYTES = 4096
"""The end of a stderr log the report quotes: at most 20 lines of its last 4 KB."""
BASELINE_PREFIX = "builtin:"
"""How the store's ``bots.spec`` marks a built-in bot (``"builtin: random"``)."""

_CARD = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9TJQKA])[shdc](?![A-Za-z0-9])|(?<![A-Za-z])Jk\b")


def public_text(text: str, *, lines: bool = False) -> str:
    """A bot's text as the published report shows it: escaped, card-like tokens blotted."""
    shown = escape_untrusted(text, keep_newlines=lines, one_line=not lines)
    return _CARD.sub("▒▒", shown)


def baselines(store: Store) -> set[str]:
    """The built-in bots (the tournament file's ``builtin = ...``): the baselines."""
    return {name for name, spec in store.bots().items() if spec.startswith(BASELINE_PREFIX)}


def recent_faults(
    store: Store, kind: str, tournaments: Sequence[str], limit: int = FAULT_TEXTS
) -> dict[str, list[dict[str, Any]]]:
    """Each bot's latest ``limit`` faults (newest first) in this game type and selection."""
    found: dict[str, list[dict[str, Any]]] = {}
    names: Sequence[str | None] = tournaments or [None]
    for name in names:
        where, args = filters(game_type=kind, tournament=name)
        query = (
            "SELECT * FROM (SELECT b.name, t.name, m.match_key, f.hand_number, f.reason,"
            " f.detail, f.applied, f.id, ROW_NUMBER() OVER (PARTITION BY b.name"
            " ORDER BY f.id DESC) AS k FROM faults f"
            " JOIN seat_results r ON r.match_id = f.match_id AND r.seat = f.seat"
            " JOIN bots b ON b.id = r.bot_id JOIN matches m ON m.id = f.match_id"
            " JOIN tournaments t ON t.id = m.tournament_id" + where + ") AS recent"
            " WHERE k <= ? ORDER BY id DESC"
        )
        with store._read() as db:
            rows = db.execute(query, [*args, limit]).fetchall()
        for bot, tournament, key, hand, reason, detail, applied, *_ in rows:
            found.setdefault(bot, []).append(
                {
                    "where": f"{tournament} / {key}, hand {hand}",
                    "reason": public_text(str(reason)),
                    "detail": public_text(str(detail or "")),
                    "applied": public_text(str(applied or "")),
                }
            )
    return {bot: faults[:limit] for bot, faults in found.items()}


def start_errors(rows: Iterable[MatchRow]) -> dict[str, list[dict[str, str]]]:
    """Each bot's start-up errors, one per forfeit it did not start (the text stored with it)."""
    found: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        stored = row.summary.get("not_started") if row.reason == NOT_STARTED else None
        if not isinstance(stored, dict):
            continue
        for bot, error in stored.items():
            found.setdefault(str(bot), []).append(
                {
                    "where": f"{row.tournament} / {row.key}",
                    "error": public_text(str(error), lines=True),
                }
            )
    return found


def sat_out(rows: Iterable[MatchRow]) -> dict[str, list[str]]:
    """Each bot's matches where it was sat out (its fault limit reached)."""
    found: dict[str, list[str]] = {}
    for row in rows:
        for seat in row.seats:
            if seat.sat_out:
                found.setdefault(seat.bot, []).append(f"{row.tournament} / {row.key}")
    return found


def stderr_tails(rows: Iterable[MatchRow], bot: str) -> list[dict[str, str]]:
    """The end of ``bot``'s stderr log in each records folder it played in, where it exists."""
    folders = dict.fromkeys(Path(r.records_dir).parent for r in rows if _plays(r, bot))
    tails = []
    for folder in folders:
        log = folder / "bots" / f"{safe_name(bot)}.stderr.log"
        text = _tail(log)
        if text is not None:
            tails.append({"log": f"{folder.name}/bots/{log.name}", "text": text})
    return tails


def _plays(row: MatchRow, bot: str) -> bool:
    return any(seat.bot == bot for seat in row.seats)


def _tail(log: Path) -> str | None:
    """The last lines of ``log`` as the report shows them (None: no such file)."""
    try:
        with log.open("rb") as handle:
            size = handle.seek(0, 2)
            handle.seek(max(0, size - STDERR_BYTES))
            data = handle.read(STDERR_BYTES)
    except OSError:
        return None
    lines = data.decode("utf-8", "replace").splitlines()
    if size > STDERR_BYTES and lines:
        lines = lines[1:]  # the first line read was cut
    shown = "\n".join(lines[-STDERR_LINES:])
    return public_text(shown, lines=True) if shown.strip() else ""


def bot_notes(
    store: Store, kind: str, tournaments: Sequence[str], rows: list[MatchRow]
) -> dict[str, dict[str, Any]]:
    """For each bot of ``rows``: ``baseline``, ``faults`` (latest texts), ``start_errors``,
    ``sat_out`` (match names) and ``stderr`` (log tails)."""
    base, faults = baselines(store), recent_faults(store, kind, tournaments)
    errors, sat = start_errors(rows), sat_out(rows)
    bots = dict.fromkeys(seat.bot for row in rows for seat in row.seats)
    return {
        bot: {
            "baseline": bot in base,
            "faults": faults.get(bot, []),
            "start_errors": errors.get(bot, []),
            "sat_out": sat.get(bot, []),
            "stderr": stderr_tails(rows, bot),
        }
        for bot in bots
    }
