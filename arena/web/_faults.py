"""Faults in the public view of a hand: each default, sit-out and crash as a marked step.

A fault is public (whose, why, what was played instead); what a bot wrote into its
detail is not trusted: it is escaped, and for a spectator every card-like token in it
is blotted out, since a bot may print its own hidden cards into an exception message.
The dealer records where in the hand each fault happened
(:attr:`arena.dealer.FaultRecord.event_index`): the action played for it is marked
("timed out → checks (default)"), any other fault (a sit-out, the fault limit) is a
step of its own at that point of the hand.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from arena.text import escape_untrusted

_WHY = {
    "TIMEOUT": "timed out",
    "BOT_ERROR": "raised an error in its code",
    "ILLEGAL_ACTION": "made an illegal move",
    "WRONG_DECISION_ID": "answered another decision",
    "MALFORMED": "sent an unreadable answer",
    "DISCONNECTED": "crashed or lost its connection",
    "SAT_OUT": "reached the fault limit",
    "MEMORY_LIMIT": "went over its memory limit",
    "PROCESS_LIMIT": "went over its process limit",
    "RATE_LIMITED": "sent too many messages",
}
_CARD = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][shdc]|Jk|10[shdc])(?![A-Za-z0-9])")
_OWN_ACTION = "the bot's own action was played"
ACTION_KINDS = frozenset({"fold", "check", "call", "bet", "raise", "draw"})
"""Step kinds a decision makes: the ones a fault's default can be."""


def _field(fault: Any, name: str, default: Any = None) -> Any:
    if isinstance(fault, Mapping):
        return fault.get(name, default)
    return getattr(fault, name, default)


def public_fault(fault: Any, *, reveal: bool) -> dict[str, Any]:
    """One fault (a :class:`arena.dealer.FaultRecord` or its ``log.jsonl`` line) as the
    page shows it: ``seat`` (table seat), ``reason``, ``why`` (in words), ``detail``
    (escaped; for a spectator with every card-like token blotted out), ``applied``."""
    reason = str(_field(fault, "reason", "") or "UNSPECIFIED")
    detail = escape_untrusted(str(_field(fault, "detail", "") or ""), one_line=True)
    if not reveal:
        detail = _CARD.sub("▒▒", detail)
    index = _field(fault, "event_index", -1)
    return {
        "seat": int(_field(fault, "seat", -1)),
        "reason": escape_untrusted(reason, one_line=True),
        "why": _WHY.get(reason, f"made a fault ({escape_untrusted(reason, one_line=True)})"),
        "detail": detail,
        "applied": escape_untrusted(str(_field(fault, "applied", "") or ""), one_line=True),
        "event_index": index if isinstance(index, int) and not isinstance(index, bool) else -1,
    }


class FaultPlacer:
    """The faults of one hand, handed out as its steps are built (in event order)."""

    def __init__(self, faults: Iterable[Any], *, reveal: bool, events: int) -> None:
        placed = [public_fault(fault, reveal=reveal) for fault in faults]
        for fault in placed:  # -1 (before the deal) and past the end stay at the ends
            fault["event_index"] = min(max(fault["event_index"], -1), events)
        self.pending = sorted(placed, key=lambda fault: fault["event_index"])

    def mark(self, index: int, step: dict[str, Any], name: str) -> None:
        """Mark ``step`` (made from event ``index``) with the fault it was played for."""
        if step["kind"] not in ACTION_KINDS:
            return
        for fault in self.pending:
            if fault["event_index"] == index and fault["seat"] == step["seat"]:
                self.pending.remove(fault)
                step["fault"] = _shown(fault)
                rest = step["text"].removeprefix(f"{name} ")
                if _OWN_ACTION in fault["detail"]:
                    step["text"] = f"{name} {rest} ({fault['why']}: its own action stood)"
                else:
                    step["text"] = f"{name} {fault['why']} → {rest} (default)"
                if fault["reason"] == "DISCONNECTED":  # its stream is gone: out of the deals
                    step["text"] += "; it sits out"
                return

    def before(self, index: int) -> list[dict[str, Any]]:
        """The faults that happened before event ``index`` and mark no action."""
        due = [fault for fault in self.pending if fault["event_index"] < index]
        self.pending = [fault for fault in self.pending if fault["event_index"] >= index]
        return due

    def rest(self) -> list[dict[str, Any]]:
        """Every fault not placed yet (those at the hand's end)."""
        due, self.pending = self.pending, []
        return due


def fault_step(
    fault: dict[str, Any], names: Mapping[int, str], tally_state: dict[str, Any]
) -> dict[str, Any]:
    """A fault that marks no action (a sit-out, the fault limit) as a step of its own."""
    seat = fault["seat"]
    name = names.get(seat, f"seat {seat}")
    applied = fault["applied"]
    if fault["reason"] == "SAT_OUT":
        text = f"{name} {fault['why']}: {applied or 'sits out'}"
    elif applied in ("sit out", ""):
        text = f"{name} {fault['why']}: sits out"
    else:
        text = f"{name} {fault['why']} → {applied}"
    return {
        "kind": "fault",
        "seat": seat if seat in names else None,
        "amount": None,
        "drew": None,
        "cards": [],
        "discarded": [],
        **tally_state,
        "text": text,
        "fault": _shown(fault),
    }


def _shown(fault: dict[str, Any]) -> dict[str, str]:
    return {"reason": fault["reason"], "why": fault["why"], "detail": fault["detail"]}


def faults_by_hand(lines: Iterable[str]) -> dict[int, list[dict[str, Any]]]:
    """The ``fault`` records of a match's ``log.jsonl`` lines, by match-wide hand number
    (a line that is not JSON, or not a fault, is skipped)."""
    found: dict[int, list[dict[str, Any]]] = {}
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if not isinstance(record, dict) or record.get("event") != "fault":
            continue
        number = record.get("hand_number")
        if isinstance(number, int) and not isinstance(number, bool):
            found.setdefault(number, []).append(record)
    return found


def rotation_names(names: Sequence[str], known: Iterable[str]) -> tuple[list[str], int | None]:
    """The bots' names of a duplicate rotation's players, and the rotation (2, 3, ...).

    Rotation ``k`` plays every bot's ``k``-th instance, named ``NAME.k``; the names are
    given back without the suffix when every player carries the same one and each bare
    name is a bot of the match (``known``); else they stand, with rotation None.
    """
    parts = [name.rpartition(".") for name in names]
    suffixes = {tail for _, _, tail in parts}
    if len(suffixes) != 1 or any(not dot for _, dot, _ in parts):
        return list(names), None
    suffix = suffixes.pop()
    bare = [head for head, _, _ in parts]
    if not (suffix.isascii() and suffix.isdigit() and 2 <= int(suffix) <= 7):
        return list(names), None
    if not set(bare) <= set(known):
        return list(names), None
    return bare, int(suffix)
