"""The table's records: seat states, frozen snapshots and per-deal results (R20-R22, R25, R26).

These are what the dealer and the reports read; :class:`~arena.engine.Table` owns the
mutable state behind them and hands out only these frozen copies.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum

from arena.engine._errors import EngineInvariantError


class SeatState(StrEnum):
    """Where a seat stands for the next deal."""

    EMPTY = "empty"
    ACTIVE = "active"
    """Dealt into the next deal (or into the one running)."""
    WAITING = "waiting"
    """Seated, not yet dealt in: waits for the big blind, or to post in where allowed (R21, R22)."""
    SITTING_OUT = "sitting_out"
    """Not playing; collects missed-blind markers as blinds pass it (R22, R25)."""


class BustPolicy(StrEnum):
    """What happens to a player whose stack reaches 0 at the end of a deal."""

    SIT_OUT = "sit_out"
    LEAVE = "leave"


class TableError(ValueError):
    """A seating request the table cannot honour now (the caller's fault); nothing changed."""


@dataclass(frozen=True, slots=True)
class SeatInfo:
    """One seat as the dealer and reports see it.

    ``missed_big`` / ``missed_small`` are the R22 markers MB and MS. ``owes_entry`` is
    True for a player who joined after the first deal and has not yet posted a big blind
    (R21). ``wants_to_post`` is the choice a waiting player made: post to come back at
    once where allowed, or wait for the big blind.
    """

    seat: int
    name: str | None = None
    stack: int = 0
    state: SeatState = SeatState.EMPTY
    missed_big: bool = False
    missed_small: bool = False
    owes_entry: bool = False
    wants_to_post: bool = False
    in_hand: bool = False
    leaving: bool = False

    @property
    def markers(self) -> tuple[str, ...]:
        """The R22 buttons shown at the seat: ``("MB",)``, ``("MS",)``, both or none."""
        return (("MB",) if self.missed_big else ()) + (("MS",) if self.missed_small else ())


@dataclass(frozen=True, slots=True)
class Positions:
    """Who held what in one deal, in table seats.

    ``button`` may be an empty or sitting-out seat (a dead button, R20);
    ``small_blind`` is None when the small blind is dead. ``dealt`` lists the seats
    dealt in, in seat order: index ``i`` of the :class:`~arena.engine.Hand` is seat
    ``dealt[i]``. ``posts`` are the extra forced posts as ``(seat, live, dead)``.
    """

    button: int
    small_blind: int | None
    big_blind: int | None
    dealt: tuple[int, ...]
    posts: tuple[tuple[int, int, int], ...] = ()

    @property
    def dead_button(self) -> bool:
        return self.button not in self.dealt

    def index_of(self, seat: int) -> int:
        """The :class:`~arena.engine.Hand` index of table ``seat``."""
        return self.dealt.index(seat)


@dataclass(frozen=True, slots=True)
class HandSettlement:
    """What :meth:`Table.finish_hand` did: chips per seat, the carried pot, who left."""

    hand_number: int
    payoffs: tuple[tuple[int, int], ...]
    """``(seat, net chips won or lost)`` for each dealt-in seat."""
    carried_pot: int
    """Chips a dead Jackpots deal left for the next one (R28); else 0."""
    busted: tuple[int, ...]
    departed: tuple[tuple[int, str, int], ...]
    """``(seat, name, chips taken)`` for players who left when the deal ended."""


@dataclass(frozen=True, slots=True)
class TableStatistics:
    """A frozen snapshot of the table between (or during) deals."""

    hands_dealt: int
    positions: Positions | None
    """The last deal's positions (None before the first)."""
    carried_pot: int
    total_chips: int
    hand_in_progress: bool
    seats: tuple[SeatInfo, ...]


# --- internal: the table's mutable seat record and seat geometry -----------------


@dataclass(slots=True)
class PlayerRecord:
    """A seated player as the :class:`~arena.engine.Table` keeps it between deals.

    The table changes it only through the methods below, so every write to these
    fields is in this module (``tests/engine/test_structure.py`` checks it).
    """

    name: str
    stack: int
    state: SeatState
    missed_big: bool = False
    missed_small: bool = False
    owes_entry: bool = False
    wants_to_post: bool = False
    leaving: bool = False

    @property
    def owes(self) -> bool:
        return self.owes_entry or self.missed_big or self.missed_small

    @property
    def waits_for_button(self) -> bool:
        """A new player, or one with only MS, posts in only once the button has passed
        their seat (R21, R22); MB alone does not restrict."""
        return self.owes_entry or (self.missed_small and not self.missed_big)

    def entry_post(self, big_blind: int, small_blind: int) -> tuple[int, int]:
        """(live, dead) chips to post in now (R21, R22): a big blind live for a new player
        or MB, a small blind dead for MB or MS."""
        live = big_blind if self.owes_entry or self.missed_big else 0
        dead = small_blind if self.missed_big or self.missed_small else 0
        return live, dead

    def info(self, seat: int, in_hand: bool) -> SeatInfo:
        """The frozen copy the dealer and reports see."""
        return SeatInfo(
            seat,
            self.name,
            self.stack,
            self.state,
            self.missed_big,
            self.missed_small,
            self.owes_entry,
            self.wants_to_post,
            in_hand,
            self.leaving,
        )

    def clear_debts(self) -> None:
        self.missed_big = self.missed_small = self.owes_entry = self.wants_to_post = False

    def activate(self) -> None:
        """Dealt into the next deal, owing nothing (R21, R22 settled or waived)."""
        self.clear_debts()
        self.state = SeatState.ACTIVE

    def wait(self, post: bool) -> None:
        """Wait for the big blind, or with ``post`` to post in where R21/R22 allow."""
        self.state = SeatState.WAITING
        self.wants_to_post = post

    def sit_out(self) -> None:
        self.state = SeatState.SITTING_OUT
        self.wants_to_post = False

    def miss_big_blind(self) -> None:
        """The big blind passed this sitting-out seat: the MB marker (R22)."""
        self.missed_big = True

    def miss_small_blind(self) -> None:
        """The small blind this seat owed went by: the MS marker (R22)."""
        self.missed_small = True

    def set_stack(self, stack: int) -> None:
        self.stack = stack

    def leave_after_deal(self) -> None:
        """Leave when the running deal ends (the table settles it first)."""
        self.leaving = True


@dataclass(slots=True)
class DealPlan:
    """Everything one deal changes, computed before anything is changed."""

    positions: Positions
    entering: tuple[int, ...] = ()
    mark_big: tuple[int, ...] = ()
    mark_small: tuple[int, ...] = ()
    sb_position: int | None = None


def clockwise(start: int, seats: int) -> Iterator[int]:
    """Every seat after ``start`` clockwise, ending with ``start`` itself."""
    for k in range(1, seats + 1):
        yield (start + k) % seats


def between(start: int, seat: int, stop: int, seats: int, *, include_start: bool = False) -> bool:
    """Whether ``seat`` lies clockwise after ``start`` and before ``stop``."""
    offset = (seat - start) % seats
    return (include_start or offset > 0) and offset < (stop - start) % seats


def button_index(dealt: tuple[int, ...], button: int, seats: int) -> int:
    """The Hand index for the button: the button's player, or for a dead button the last
    player dealt in before it, so everything "left of the button" starts where it should."""
    for k in range(seats):
        seat = (button - k) % seats
        if seat in dealt:
            return dealt.index(seat)
    raise EngineInvariantError("no player dealt in")  # pragma: no cover
