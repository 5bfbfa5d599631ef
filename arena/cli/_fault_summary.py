"""The bots that went wrong, one line each, at the end of a match or a tournament.

``alice: 12 faults — 10 BOT_ERROR (decide raised IndexError at bot.py:12), 2 TIMEOUT;
sat out at hand 40`` (issue 21 item 2): reasons by count, each with its most common
detail (a timeout's detail, which differs at each decision, is left out), then whether
the bot sat out, forfeited or did not start. A SAT_OUT record is that last part, not a
reason. Everything a bot chose (its name, its details) is escaped and kept short.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from arena.text import escape_untrusted

DETAIL_CHARS = 80
"""The most of a fault's detail a line shows (the records keep it whole)."""

_NO_DETAIL = {"TIMEOUT", "SAT_OUT"}


@dataclass(frozen=True)
class Trouble:
    """One bot's faults by reason, a detail per reason, and how it left (``out``)."""

    name: str
    reasons: Mapping[str, int]
    details: Mapping[str, str]
    out: str = ""


def _safe(text: str, limit: int) -> str:
    text = escape_untrusted(text, one_line=True)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def trouble_line(trouble: Trouble) -> str | None:
    """The bot's line, or None when nothing went wrong."""
    counts = {r: n for r, n in trouble.reasons.items() if r != "SAT_OUT" and n > 0}
    parts = []
    for reason, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        detail = "" if reason in _NO_DETAIL else trouble.details.get(reason, "")
        shown = f" ({_safe(detail, DETAIL_CHARS)})" if detail else ""
        parts.append(f"{count} {_safe(reason, 40)}{shown}")
    total = sum(counts.values())
    said = [f"{total} fault{'s' if total != 1 else ''} — " + ", ".join(parts)] if parts else []
    if trouble.out:
        said.append(_safe(trouble.out, 2 * DETAIL_CHARS))
    if not said:
        return None
    return f"{_safe(trouble.name, 64)}: " + "; ".join(said)


def trouble_lines(troubles: Iterable[Trouble]) -> list[str]:
    """A line for each bot that had a fault, sat out, forfeited or did not start."""
    return [line for t in troubles if (line := trouble_line(t)) is not None]


def match_troubles(summary: Mapping[str, Any], folder: Path) -> list[Trouble]:
    """Each seat of one match (``result.json``'s ``summary``), its faults from ``log.jsonl``."""
    faults: dict[int, list[dict[str, Any]]] = {}
    log = folder / "log.jsonl"
    for row in log.read_text(encoding="utf-8").splitlines() if log.exists() else []:
        if '"fault"' not in row:
            continue
        record = json.loads(row)
        if record.get("event") == "fault":
            faults.setdefault(int(record.get("seat", -1)), []).append(record)
    return [_seat_trouble(seat, faults.get(seat["seat"], [])) for seat in summary["seats"]]


def _seat_trouble(seat: Mapping[str, Any], faults: list[dict[str, Any]]) -> Trouble:
    reasons = Counter(str(f.get("reason", "")) for f in faults)
    details: dict[str, str] = {}
    for reason in reasons:
        texts = Counter(str(f.get("detail", "")) for f in faults if f.get("reason") == reason)
        details[reason] = texts.most_common(1)[0][0]
    out = ""
    if seat.get("forfeited") or seat.get("sat_out"):
        left = [f for f in faults if f.get("applied") in ("sit out", "forfeit")]
        verb = "forfeited" if seat.get("forfeited") else "sat out"
        out = f"{verb} at hand {left[-1].get('hand_number')}" if left else verb
    return Trouble(str(seat["name"]), reasons, details, out)


def tournament_troubles(
    tally: Mapping[str, Any], did_not_start: Mapping[str, str]
) -> list[Trouble]:
    """Each bot of a tournament: the store's tally (:class:`arena.store.BotFaults` by name)
    and the bots that did not start, with why."""
    troubles = []
    for name in sorted(set(tally) | set(did_not_start)):
        bot = tally.get(name)
        out = []
        if bot is not None and bot.sat_out:
            out.append(f"sat out in {bot.sat_out} of {bot.matches} matches")
        if bot is not None and bot.forfeited:
            out.append(f"forfeited {bot.forfeited} of {bot.matches} matches")
        if name in did_not_start:
            out.append(f"did not start: {did_not_start[name]}")
        reasons = bot.reasons if bot is not None else {}
        details = bot.details if bot is not None else {}
        troubles.append(Trouble(name, reasons, details, "; ".join(out)))
    return troubles


def stored_trouble_lines(
    database: Path | str, tournament: str, did_not_start: Mapping[str, str]
) -> list[str]:
    """The lines for ``tournament`` as its database holds it (none if it cannot be read)."""
    from arena.tournament import Store, StoreError

    try:
        with Store.open(database, create=False) as store:
            tally = store.faults_by_bot(tournament=tournament)
    except (StoreError, OSError):
        tally = {}
    return trouble_lines(tournament_troubles(tally, did_not_start))
