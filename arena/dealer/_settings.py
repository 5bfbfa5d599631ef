"""A match's settings and what it yields: the records every caller of the dealer reads.

Kept apart from the match runner so that recorders, the tournament and the command line
can name them without the runner's machinery.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field, replace
from enum import StrEnum

from arena.dealer._deal import new_deal_key
from arena.engine import GameConfig


class OnFaultLimit(StrEnum):
    """What R25 does to a seat past its fault limit or after it breaks."""

    SIT_OUT = "sit_out"
    FORFEIT = "forfeit"


HELLO_TIMEOUT = 2.0
"""Default seconds from MatchStart to the bot's Hello: a bot that connects and says
nothing stalls its table this long per try (and gets a TIMEOUT fault for it)."""

HANDS_PER_MATCH = 200
"""Default hands per match: ``MatchSettings``, ``arena match --hands`` and a tournament
file's ``hands_per_match`` all read it (one owner per default)."""

ACTION_TIMEOUT = 1.0
"""Default seconds per decision (R23), for ``MatchSettings``, the CLI and tournament files."""

CPU_BACKSTOP_FACTOR = 2.0
"""A seat on the CPU clock also has a wall-clock backstop of ``max(CPU_BACKSTOP_FACTOR x
allowed, allowed + CPU_BACKSTOP_FLOOR)`` seconds per decision: loose enough that a busy
machine (half the CPU a bot asks for) never times out a bot that uses its CPU, tight
enough that a stopped or sleeping bot loses its turn soon (issue 9 item 5; it was 5x
until issue 21 item 1 found a 3 s sleeper unfaulted at a 2 s clock)."""

CPU_BACKSTOP_FLOOR = 1.0
"""Seconds the wall-clock backstop gives at least beyond what the CPU clock allows."""

WALL_BUDGET = 1.0
"""Default seconds per match a seat on the CPU clock may take past the action timeout
that its CPU use does not account for (each decision's wall time past the action timeout,
less twice the CPU the bot used in it, as the backstop allows for a busy machine:
sleeping, blocking, being stopped). The decision that
would overspend it times out, and the seat sits out the rest of the match (issue 21
item 1: a chess clock's total, so a league can be planned on; a bot that computes is
never charged). ``MatchSettings``, ``arena match --wall-budget`` and a tournament
file's ``timeouts.wall_budget`` read it."""

STARTUP_TIMEOUT = 15.0
"""Default seconds for a bot to become healthy (launched or dialled), for the launcher,
the CLI, tournament files and driver plugins."""


@dataclass(frozen=True, kw_only=True)
class MatchSettings:
    """One match's settings; times in seconds.

    ``seed`` None draws one from the CSPRNG (see :func:`with_seed` to draw it before the
    match, so that it can be recorded first). ``hello_timeout`` bounds the wait for the
    Hello after MatchStart (not the bot's start-up or restart, which have their own).
    """

    config: GameConfig
    hands: int = HANDS_PER_MATCH
    starting_stack: int = 200
    seed: int | None = None
    duplicate: bool = False
    action_timeout: float = ACTION_TIMEOUT
    time_bank: float = 0.0
    wall_budget: float = WALL_BUDGET
    hello_timeout: float = HELLO_TIMEOUT
    fault_limit: int = 0
    on_fault_limit: OnFaultLimit = OnFaultLimit.SIT_OUT
    reconnect: bool = True
    match_id: str = "match"
    table_id: str = "table-1"
    deal_key: str | None = None
    """64 hex digits no bot ever sees: with ``seed`` it gives every deck, each
    rotation's order and each seat's seed (:mod:`arena.dealer._deal`); None draws one."""


def with_seed(settings: MatchSettings) -> MatchSettings:
    """``settings`` with a seed and a deal key: its own, or drawn now from the CSPRNG
    (63 bits; 32 bytes, or ``$ARENA_DEAL_KEY``).

    Callers that record a match draw both with this before the first hand, so an
    interrupted match can still be replayed.
    """
    if settings.seed is not None and settings.deal_key is not None:
        return settings
    return replace(
        settings,
        seed=secrets.randbits(63) if settings.seed is None else settings.seed,
        deal_key=new_deal_key() if settings.deal_key is None else settings.deal_key,
    )


@dataclass(frozen=True)
class FaultRecord:
    """One fault: which seat, in which hand, why (a FaultReason name), what was applied.

    ``code`` is the engine's refusal reason (``amount_too_large``) for an illegal
    action, as the bot's Fault message carries it; empty for other reasons.
    """

    hand_number: int
    seat: int
    reason: str
    detail: str
    applied: str
    decision_id: str = ""
    code: str = ""
    table: int = 0
    """The table (0-based) of a duplicate match whose rotation it happened in; 0 otherwise."""
    event_index: int = -1
    """Where in its hand it happened: the index in the hand's events of the action played
    for it (the default, or the bot's own with a breach), else the number of events the
    hand held then (a sit-out); -1 outside a hand. The replayer marks that step."""


@dataclass
class MatchResult:
    """Chips won per seat (and per hand, for error bars), faults, and how it ended.

    ``stale_actions`` counts, per seat, the messages dropped because they answered an
    earlier decision (a late or repeated answer) or were an extra Hello: not faults.
    ``clocks`` says per seat which clock its decisions ran on: ``"cpu"`` (the CPU time of
    the bot's process tree, with a wall-clock backstop) or ``"wall"``.
    ``duplicate_isolated`` is True only for a duplicate match whose rotations were played
    by separate driver objects (no process saw a deck twice; issue 9 item 3).
    """

    match_id: str
    names: list[str]
    seed: int
    hands_played: int = 0
    chips_won: list[int] = field(default_factory=list)
    payoffs: list[list[int]] = field(default_factory=list)
    faults: list[FaultRecord] = field(default_factory=list)
    sat_out: list[bool] = field(default_factory=list)
    hellos: list[dict[str, object] | None] = field(default_factory=list)
    forfeited: list[bool] = field(default_factory=list)
    stale_actions: list[int] = field(default_factory=list)
    reason: str = "completed"
    clocks: list[str] = field(default_factory=list)
    duplicate_isolated: bool = False
    repeat_chips: list[int] = field(default_factory=list)
    """Per seat, the chips won at hands that dealt a deck another table had dealt before
    (a duplicate match; empty otherwise). A bot whose instances read each other's cards
    wins there far more than at first dealings (issue 19: the check an organiser can run)."""
