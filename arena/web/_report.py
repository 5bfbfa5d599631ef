"""The tournament report: one self-contained HTML file from the arena database.

Everything is read through :class:`arena.tournament.Store` and the standings it feeds
(the same figures as ``arena ratings``), turned into plain values and inline SVG
(:mod:`arena.web._svg`), and rendered by one Jinja2 template with autoescape on. The file
loads nothing: no external ``src`` or ``href``, CSS inline; the only links are to each
match's replay page (``<records_dir>/replay.html``), relative to the report when possible.
Bot names are untrusted: the template and the SVG serialiser escape them, and characters
that do not print are written as escapes (:func:`arena.text.escape_untrusted`).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2

from arena.store._store import MatchRow
from arena.text import escape_untrusted
from arena.tournament import Store
from arena.tournament._standing_notes import figure, has_interval, unfinished_notes
from arena.tournament._standings import Standings, standings_from_rows, stored_anchor
from arena.web._report_bots import bot_notes
from arena.web._svg import Cell, Interval, Series, forest_plot, heatmap, line_chart, series_style

ELO_CHECKPOINTS = 30
"""The Elo curve is refitted after at most this many evenly spaced prefixes of the matches."""

BANKROLL_POINTS = 200
MATCH_POINTS = 60
HEATMAP_BOTS = 30
"""The head-to-head heatmaps show the leaderboard's top 30 (a league's 200 bots would not fit)."""
MATCH_LINES = 12
"""A bot's chart of cumulative chips shows its latest 12 matches; its table lists every one."""


class ReportError(Exception):
    """The report cannot be made from what was asked (unknown tournament, nothing recorded)."""


@dataclass(frozen=True)
class ReportRequest:
    """What to report on: ``tournaments`` (empty: all) and ``game_type`` (None: every one)."""

    tournaments: Sequence[str] = ()
    game_type: str | None = None
    output: Path = Path("report.html")
    title: str = "arena report"
    replays: Mapping[str, str] | None = None
    """A bundle's replay pages: each match's ``records_dir`` to the href of its page
    (None: link each records folder's own ``replay.html``)."""


@dataclass
class _Section:
    kind: str
    data: dict[str, Any] = field(default_factory=dict)


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("arena.web", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["untrusted"] = lambda text: escape_untrusted(str(text))
    return env


def render_report(store: Store, request: ReportRequest) -> str:
    """The report's HTML. Raises :class:`ReportError` for an unknown tournament or no match."""
    for name in request.tournaments:
        if store.get_tournament(name) is None:
            known = ", ".join(repr(t.name) for t in store.tournaments()) or "none"
            raise ReportError(f"{store.path}: no tournament named {name!r} (recorded: {known})")
    wanted = set(request.tournaments)
    rows = [
        row
        for row in store.match_rows(game_type=request.game_type)
        if not wanted or row.tournament in wanted
    ]
    if not rows:
        raise ReportError(f"{store.path}: no matches recorded for this selection")
    kinds = sorted({row.game_type for row in rows})
    shown = sorted({row.tournament for row in rows})
    unfinished = unfinished_notes(store, request.game_type, shown)
    sections = [
        _section(store, kind, [r for r in rows if r.game_type == kind], request) for kind in kinds
    ]
    return (
        _environment()
        .get_template("report.html.j2")
        .render(
            title=request.title,
            database=store.path,
            tournaments=shown,
            unfinished=unfinished,
            sections=sections,
            picks=max((len(s.data["bots"]) for s in sections), default=0),
        )
    )


def write_report(database: Path | str, request: ReportRequest) -> Path:
    """Write the report of ``database`` to ``request.output``; returns the path written.

    Raises :class:`StoreError` (missing or corrupt database) or :class:`ReportError`.
    """
    with Store.open(database, create=False) as store:
        html = render_report(store, request)
    request.output.parent.mkdir(parents=True, exist_ok=True)
    request.output.write_text(html, encoding="utf-8")
    return request.output


def _anchor(
    store: Store, kind: str, request: ReportRequest, bots: set[str]
) -> tuple[str | None, float]:
    single = request.tournaments[0] if len(request.tournaments) == 1 else None
    stored = stored_anchor(store, kind, single)
    if stored is None:
        return None, 1000.0
    return (stored.anchor if stored.anchor in bots else None), stored.anchor_rating


def _section(store: Store, kind: str, rows: list[MatchRow], request: ReportRequest) -> _Section:
    bots = {seat.bot for row in rows for seat in row.seats}
    anchor, rating = _anchor(store, kind, request, bots)
    standings = standings_from_rows(
        rows, kind, store.current_ratings("elo", kind), anchor=anchor, anchor_rating=rating
    )
    ranked = [s.bot for s in standings.rows]
    absent = [bot for bot, _ in standings.did_not_play if bot not in ranked]
    styles = {bot: series_style(n) for n, bot in enumerate(ranked + absent)}
    notes = bot_notes(store, kind, request.tournaments, rows)
    ident = re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-") or "games"
    bot_parts = [
        _bot_section(ident, k, bot, rows, request)
        | _marks(bot, anchor, notes)
        | {"ranked": k < len(ranked)}
        for k, bot in enumerate(ranked + absent)
    ]
    return _Section(
        kind,
        {
            "ident": ident,
            "matches": len(rows),
            "anchor": anchor,
            "anchor_rating": rating,
            "leaderboard": [
                row | _marks(row["bot"], anchor, notes) for row in _leaderboard(standings)
            ],
            "did_not_play": list(standings.did_not_play),
            "elo_forest": _elo_forest(ident, standings),
            "mbb_forest": _mbb_forest(ident, standings),
            "elo_chart": _elo_over_time(ident, kind, rows, ranked, (anchor, rating), styles),
            "bankroll": _bankroll_chart(ident, rows, ranked, styles),
            "pairs": _pairs_heatmap(ident, standings, ranked[:HEATMAP_BOTS]),
            "los": _los_heatmap(ident, standings, ranked[:HEATMAP_BOTS]),
            "heatmap_cut": max(0, len(ranked) - HEATMAP_BOTS),
            "faults": _faults(store, kind, request, ranked),
            "bots": bot_parts,
            "match_list": [_match_entry(row, request) for row in rows],
        },
    )


def _pm(value: float, half: float, *, signed: bool = False, anchor: bool = False) -> str:
    """As the terminal shows it: "too few hands" where there is no interval (issue 21 item 3)."""
    return figure(value, half, signed=signed, anchor=anchor)


def _half(value: float) -> str:
    """A heatmap cell's interval; "too few" (hands) where there is none: an 80 px cell."""
    return f"± {value:.0f}" if has_interval(value) else "too few"


def _leaderboard(standings: Standings) -> list[dict[str, Any]]:
    return [
        {
            "rank": rank,
            "bot": s.bot,
            "elo": _pm(s.fit.elo, s.fit.ci95, anchor=s.bot == standings.anchor),
            "mbb": _pm(s.win_rate.mbb_per_hand, s.win_rate.ci95, signed=True),
            "matches": s.matches,
            "hands": s.hands,
            "faults": s.faults,
        }
        for rank, s in enumerate(standings.rows, 1)
    ]


def _elo_forest(ident: str, standings: Standings) -> Any:
    items = [
        Interval(
            s.bot,
            s.fit.elo,
            s.fit.ci_low,
            s.fit.ci_high,
            _pm(s.fit.elo, s.fit.ci95, anchor=s.bot == standings.anchor),
        )
        for s in standings.rows
    ]
    return forest_plot(
        f"{ident}-elo-forest",
        "Elo with 95% intervals",
        "Each bot's batch-fit Elo, best first, as a dot with a line for its 95% interval.",
        items,
        x_label="Elo",
        reference=standings.anchor_rating,
    )


def _mbb_forest(ident: str, standings: Standings) -> Any:
    items = []
    for s in standings.rows:
        rate = s.win_rate
        half = rate.ci95 if math.isfinite(rate.ci95) else math.inf
        items.append(
            Interval(
                s.bot,
                rate.mbb_per_hand,
                rate.mbb_per_hand - half,
                rate.mbb_per_hand + half,
                _pm(rate.mbb_per_hand, rate.ci95, signed=True),
            )
        )
    return forest_plot(
        f"{ident}-mbb-forest",
        "mbb/hand with 95% intervals",
        "Milli-big-blinds won per hand by each bot, with the 95% interval; the dashed line is 0.",
        items,
        x_label="mbb/hand",
        reference=0.0,
    )


def _checkpoints(count: int, limit: int = ELO_CHECKPOINTS) -> list[int]:
    """Prefix lengths 1..count, evenly spaced, at most ``limit`` of them, ``count`` included."""
    if count <= limit:
        return list(range(1, count + 1))
    return sorted({max(1, round(count * k / limit)) for k in range(1, limit + 1)})


def _elo_over_time(
    ident: str,
    kind: str,
    rows: list[MatchRow],
    ranked: list[str],
    pinned: tuple[str | None, float],
    styles: Mapping[str, tuple[str, str]],
) -> Any:
    """Refits after evenly spaced prefixes of the matches: each bot's Elo with its 95% band.

    Each bot has its colour (``styles``) in every chart; a picker shows one bot's curve.
    """
    anchor, rating = pinned
    points: dict[str, list[tuple[float, float]]] = {}
    bands: dict[str, list[tuple[float, float]]] = {}
    for k in _checkpoints(len(rows)):
        fitted = standings_from_rows(rows[:k], kind, {}, anchor=anchor, anchor_rating=rating)
        for s in fitted.rows:
            points.setdefault(s.bot, []).append((float(k), s.fit.elo))
            bands.setdefault(s.bot, []).append((s.fit.ci_low, s.fit.ci_high))
    order = [bot for bot in ranked if bot in points] + [b for b in points if b not in ranked]
    series = [Series(bot, points[bot], bands[bot]) for bot in order]
    return line_chart(
        f"{ident}-elo-time",
        "Elo over time",
        "Each bot's batch-fit Elo after each recorded match (x: matches so far), "
        "with its 95% interval as a shaded band.",
        series,
        x_label="matches",
        y_label="Elo",
        limit=ELO_CHECKPOINTS,
        styles=styles,
        picker=True,
    )


def _cumulative(
    seat_units: Sequence[int], hands: int, start_hand: float, start: float
) -> list[tuple[float, float]]:
    """(hands so far, chips so far) after each unit of one seat's match."""
    per_unit = hands / len(seat_units) if seat_units else 0.0
    total, out = start, []
    for n, chips in enumerate(seat_units, 1):
        total += chips
        out.append((start_hand + n * per_unit, total))
    return out


def _bankroll_chart(
    ident: str, rows: list[MatchRow], ranked: list[str], styles: Mapping[str, tuple[str, str]]
) -> Any:
    curves: dict[str, list[tuple[float, float]]] = {bot: [(0.0, 0.0)] for bot in ranked}
    for row in rows:
        for seat in row.seats:
            curve = curves.setdefault(seat.bot, [(0.0, 0.0)])
            units = seat.unit_chips or (seat.chips,)
            curve += _cumulative(units, seat.hands, curve[-1][0], curve[-1][1])
    return line_chart(
        f"{ident}-bankroll",
        "Bankroll: cumulative chips",
        "Each bot's chips won so far against hands played, over its matches in the order "
        "they were recorded (long curves are thinned to their shape).",
        [Series(bot, curve) for bot, curve in curves.items()],
        x_label="hands",
        y_label="chips",
        limit=BANKROLL_POINTS,
        styles=styles,
        picker=True,
    )


def _pairs_heatmap(ident: str, standings: Standings, ranked: list[str]) -> Any:
    cells = {
        pair: Cell(rate.mbb_per_hand, f"{rate.mbb_per_hand:+.0f}", _half(rate.ci95))
        for pair, rate in standings.pairs.items()
    }
    return heatmap(
        f"{ident}-pairs",
        "Head to head: mbb/hand (95% CI)",
        "Row bot's milli-big-blinds per hand against the column bot, with the 95% interval; "
        "red: the row bot won, blue: it lost. Columns are numbered by rank.",
        ranked,
        cells,
    )


def _los_heatmap(ident: str, standings: Standings, ranked: list[str]) -> Any:
    cells = {pair: Cell(value, f"{value:.2f}") for pair, value in standings.los.items()}
    return heatmap(
        f"{ident}-los",
        "Likelihood of superiority",
        "The probability that the row bot is better than the column bot, from chip results; "
        "red above 0.5, blue below. Columns are numbered by rank.",
        ranked,
        cells,
        centre=0.5,
    )


def _faults(store: Store, kind: str, request: ReportRequest, ranked: list[str]) -> dict[str, Any]:
    names: Sequence[str | None] = request.tournaments or [None]
    counts: dict[str, dict[str, int]] = {bot: {} for bot in ranked}
    for name in names:
        for bot, tally in store.faults_by_bot(game_type=kind, tournament=name).items():
            mine = counts.setdefault(bot, {})
            for reason, n in tally.reasons.items():
                mine[reason] = mine.get(reason, 0) + n
    reasons = sorted({r for tally in counts.values() for r in tally})
    return {
        "reasons": reasons,
        "rows": [(bot, [counts[bot].get(r, 0) for r in reasons]) for bot in counts],
    }


def replay_link(records_dir: str, output: Path) -> str | None:
    """The href of a match's replay page, relative to the report when possible; None if absent."""
    page = Path(records_dir) / "replay.html"
    if not page.is_file():
        return None
    try:
        relative = os.path.relpath(page.resolve(), output.resolve().parent)
    except ValueError:  # another drive: only an absolute file URL reaches it
        return page.resolve().as_uri()
    return quote(Path(relative).as_posix())


def _replay_href(row: MatchRow, request: ReportRequest) -> str | None:
    if request.replays is not None:
        return request.replays.get(row.records_dir)
    return replay_link(row.records_dir, request.output)


def _marks(bot: str, anchor: str | None, notes: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    """``marks`` ("baseline", "anchor") and ``notes`` (:func:`bot_notes`) of ``bot``."""
    mine = notes.get(bot, {})
    marks = (["baseline"] if mine.get("baseline") else []) + (["anchor"] if bot == anchor else [])
    return {"marks": marks, "notes": mine}


def _match_entry(row: MatchRow, request: ReportRequest) -> dict[str, Any]:
    return {
        "key": row.key,
        "tournament": row.tournament,
        "hands": row.hands_played
        if row.hands_played is not None
        else max((s.hands for s in row.seats), default=0),
        "reason": row.reason or "",
        "seats": [(s.bot, s.chips) for s in row.seats],
        "replay": _replay_href(row, request),
        "records": row.records_dir,
    }


def _bot_section(
    ident: str, rank: int, bot: str, rows: list[MatchRow], request: ReportRequest
) -> dict[str, Any]:
    mine = [(row, seat) for row in rows for seat in row.seats if seat.bot == bot]
    series = []
    entries = []
    for k, (row, seat) in enumerate(mine):
        others = ", ".join(s.bot for s in row.seats if s.bot != bot)
        if k >= len(mine) - MATCH_LINES:
            curve = _cumulative(seat.unit_chips or (seat.chips,), seat.hands, 0.0, 0.0)
            series.append(Series(f"{row.key} vs {others}", [(0.0, 0.0), *curve]))
        mbb = 1000.0 * seat.chips / row.big_blind / seat.hands if seat.hands else 0.0
        entries.append(
            {
                "key": row.key,
                "tournament": row.tournament,
                "opponents": others,
                "chips": seat.chips,
                "mbb": f"{mbb:+.0f}",
                "hands": seat.hands,
                "faults": seat.faults,
                "replay": _replay_href(row, request),
            }
        )
    chart = line_chart(
        f"{ident}-bot-{rank + 1}-matches",
        f"Cumulative chips per match: {bot}",
        f"Chips won so far by {bot} against hands played, one line per match "
        f"(its latest {MATCH_LINES} at most).",
        series,
        x_label="hand",
        y_label="chips",
        limit=MATCH_POINTS,
    )
    return {
        "rank": rank + 1,
        "anchor": f"{ident}-bot-{rank + 1}",
        "bot": bot,
        "matches": entries,
        "chart": chart,
    }


__all__ = ["ReportError", "ReportRequest", "render_report", "replay_link", "write_report"]
