"""What a match leaves on disk: an event log, hand histories and the result.

One folder per match::

    log.jsonl       structlog JSON lines: match start, faults, match end
    events.jsonl    one JSON object per engine event, every hand (hidden cards included:
                    this is the referee's record, not something a bot ever sees)
    hands.phhs      every hand in PHH (see docs/phh.md), replayable with `arena replay`
    result.json     chips won per seat, mbb/hand with 95% intervals, faults

The folder is 0700 and every file in it 0600: ``events.jsonl`` and ``hands.phhs`` hold
every hidden card, so no other uid (a bot's, at sandbox L2) may read them.

Files are written hand by hand and flushed, so a crash loses at most the hand in
progress. A match played again (a resumed tournament replays unfinished matches from
the start) overwrites its folder, so the records always describe one whole match.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import structlog
import tomli_w

from arena.dealer._settings import FaultRecord, MatchResult, MatchSettings
from arena.engine import Card, Hand
from arena.history import hand_to_phh
from arena.stats import win_rate


def _plain(value: Any) -> Any:
    if isinstance(value, Card):
        return str(value)
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    if hasattr(value, "value") and not isinstance(value, int):
        return value.value
    return value


def event_record(event: Any) -> dict[str, Any]:
    """An engine event as a JSON-ready dict: ``{"event": "Called", "seat": 1, ...}``."""
    record: dict[str, Any] = {"event": type(event).__name__}
    for key, value in event._asdict().items():
        record[key] = _plain(value)
    return record


@dataclass(frozen=True, slots=True)
class SeatSummary:
    """One seat's figures for a match, computed once: what ``result.json`` and the
    tournament's per-seat rows both read.

    ``units`` are the chips won per unit (a block of ``duplicate_block`` hands: one deck,
    every rotation, with duplicate dealing; else one hand); ``ci95`` is None when there
    are too few units for an interval.
    """

    seat: int
    name: str
    chips_won: int
    hands: int
    units: tuple[int, ...]
    mbb_per_hand: float
    ci95: float | None
    faults: int
    stale_actions: int
    sat_out: bool
    forfeited: bool


def seat_summaries(
    result: MatchResult, big_blind: int, *, duplicate_block: int = 1
) -> list[SeatSummary]:
    """Every seat's :class:`SeatSummary`; units cut into blocks of ``duplicate_block`` hands.

    With duplicate dealing the blocks are the independent unit, which removes most of
    the card luck from the interval.
    """
    block = max(1, duplicate_block)
    seats = []
    for seat, name in enumerate(result.names):
        per_hand = [row[seat] for row in result.payoffs]
        units = tuple(
            sum(per_hand[i : i + block]) for i in range(0, len(per_hand) - block + 1, block)
        )
        rate = win_rate(list(units), big_blind, hands_per_unit=block)
        seats.append(
            SeatSummary(
                seat=seat,
                name=name,
                chips_won=result.chips_won[seat],
                hands=result.hands_played,
                units=units,
                mbb_per_hand=rate.mbb_per_hand,
                ci95=rate.ci95 if rate.ci95 != float("inf") else None,
                faults=sum(1 for f in result.faults if f.seat == seat),
                # answers to earlier decisions, dropped (not faults)
                stale_actions=result.stale_actions[seat] if result.stale_actions else 0,
                sat_out=result.sat_out[seat],
                forfeited=result.forfeited[seat],
            )
        )
    return seats


def summarize(
    result: MatchResult,
    big_blind: int,
    *,
    duplicate_block: int = 1,
    seats: Sequence[SeatSummary] | None = None,
    sandbox: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The result as JSON (``result.json``): per seat chips and mbb/hand with a 95% interval.

    ``seats``: the :func:`seat_summaries` already computed for this result, if any.
    ``sandbox``: the sandbox layer each seat ran under (``"L1"``, ``"none"`` in process).
    Each seat also shows its Hello (the bot's own name and version, as JSON escapes it)
    and the clock its decisions ran on (``cpu`` or ``wall``).
    """
    hellos = result.hellos or [None] * len(result.names)
    clocks: list[str | None] = list(result.clocks) or [None] * len(result.names)
    if seats is None:
        seats = seat_summaries(result, big_blind, duplicate_block=duplicate_block)
    return {
        "match_id": result.match_id,
        "seed": result.seed,
        "hands_played": result.hands_played,
        "reason": result.reason,
        # rotations played by separate processes (a duplicate match no bot can remember)
        "duplicate_isolated": result.duplicate_isolated,
        # chips won per seat at the second (or later) dealing of a deck: far above its share
        # of the chips, a bot whose instances read each other's cards (issue 19)
        "repeat_chips": list(result.repeat_chips),
        "seats": [
            {
                "seat": s.seat,
                "name": s.name,
                "chips_won": s.chips_won,
                "mbb_per_hand": round(s.mbb_per_hand, 1),
                "ci95": None if s.ci95 is None else round(s.ci95, 1),
                "faults": s.faults,
                "stale_actions": s.stale_actions,
                "sat_out": s.sat_out,
                "forfeited": s.forfeited,
                "hello": hellos[s.seat],
                "clock": clocks[s.seat],
                "sandbox": None if sandbox is None else sandbox[s.seat],
            }
            for s in seats
        ],
    }


class MatchRecorder:
    """Writes a match's records as it runs; pass its methods to :func:`run_match`."""

    def __init__(self, folder: Path, settings: MatchSettings) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.folder.chmod(0o700)
        self.settings = settings
        self._log_file = _private(self.folder / "log.jsonl")
        self._events = _private(self.folder / "events.jsonl")
        self._phh = _private(self.folder / "hands.phhs")
        self.log = structlog.wrap_logger(
            structlog.WriteLogger(self._log_file),
            processors=[
                structlog.processors.add_log_level,
                structlog.processors.TimeStamper(fmt="iso", utc=True),
                structlog.processors.JSONRenderer(sort_keys=True),
            ],
        ).bind(match_id=settings.match_id, table_id=settings.table_id)
        self.seats: list[SeatSummary] = []  # set by match_finished
        self.sandbox: list[str] | None = None  # set by match_started

    def match_started(
        self, names: Sequence[str], seed: int | None, *, sandbox: Sequence[str] | None = None
    ) -> None:
        """Log the start; ``sandbox`` is the layer each seat runs under, kept for the result."""
        self.sandbox = None if sandbox is None else list(sandbox)
        self.log.info(
            "match_started",
            players=list(names),
            seed=seed,
            # the referee's secret: with the seed it deals the same cards again (never
            # sent to a bot; this folder is 0700 and never mounted in a sandbox)
            deal_key=self.settings.deal_key,
            hands=self.settings.hands,
            structure=self.settings.config.structure.value,
            duplicate=self.settings.duplicate,
            sandbox=self.sandbox,
        )
        self._log_file.flush()

    def on_hand(self, number: int, hand: Hand, seats: Sequence[int], names: Sequence[str]) -> None:
        """Append the hand's events and its PHH record."""
        for event in hand.events:
            record = event_record(event)
            if "seat" in record:
                record["seat"] = seats[record["seat"]]
            record["hand"] = number
            self._events.write(json.dumps(record) + "\n")
        self._events.flush()
        phh = hand_to_phh(hand, players=list(names), seats=list(seats), hand_number=number)
        self._phh.write(tomli_w.dumps({str(number): phh}) + "\n")
        self._phh.flush()

    def on_fault(self, fault: FaultRecord) -> None:
        self.log.warning("fault", **fault.__dict__)
        self._log_file.flush()

    def match_finished(self, result: MatchResult, *, duplicate_block: int = 1) -> dict[str, Any]:
        """Log and write ``result.json``; the per-seat figures stay in :attr:`seats`."""
        big_blind = self.settings.config.big_blind
        assert big_blind is not None
        self.seats = seat_summaries(result, big_blind, duplicate_block=duplicate_block)
        summary = summarize(result, big_blind, seats=self.seats, sandbox=self.sandbox)
        for seat, hello in enumerate(result.hellos):
            if hello is not None:  # what the bot called itself, next to the name it was given
                self.log.info(
                    "bot_hello",
                    seat=seat,
                    given_name=result.names[seat],
                    hello_name=hello["name"],
                    hello_version=hello["version"],
                )
        self.log.info("match_finished", **summary)
        with _private(self.folder / "result.json") as file:
            file.write(json.dumps(summary, indent=2) + "\n")
        self.close()
        return summary

    def close(self) -> None:
        for handle in (self._log_file, self._events, self._phh):
            if not handle.closed:
                handle.close()


def _private(path: Path) -> TextIO:
    """``path`` opened for writing, truncated, readable by this uid only (0600, even if it
    existed with wider bits)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    return open(fd, "w", encoding="utf-8")  # the caller closes it
