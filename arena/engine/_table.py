"""The table across deals: seats, the button, the blinds and missed blinds (R5, R20-R22, R25-R28).

A :class:`Table` has 2 to 7 seats, any of which may be empty. Between deals the dealer
seats players (:meth:`Table.join`, :meth:`Table.leave`, :meth:`Table.sit_out`,
:meth:`Table.sit_in`); each deal is :meth:`Table.start_hand` (returns the
:class:`~arena.engine.Hand` for the players dealt in) and :meth:`Table.finish_hand`
(moves the chips back to the seats). Pure and synchronous: no I/O, no clock, and the
only randomness is the ``rng`` passed in for the first button (R5).

How the blinds move (blind games; R20, the "moving big blind, dead button" rule):

* The first deal puts the button on a seat drawn from ``rng`` (or given), the small
  blind on the next active player, the big blind on the one after (R5, R6).
* After that the big blind is computed first: the first seat after last deal's big blind
  whose player is active or waiting (a waiting player reached by the big blind plays
  at once and posts it, R21). Sitting-out seats it passes get the MB marker (R22).
* The small blind is owed by the player who had the big blind last deal. If that player
  left, or is not playing now, the small blind is dead (nobody posts it); a player who
  sat out gets the MS marker.
* The button goes to the seat of last deal's small blind, posted or dead, even if that
  seat is empty now (a dead button). So every player pays one big blind and one small
  blind before getting the button, and one big blind per orbit.
* Posting in (R21, R22): a waiting player who chose to post may play before the big
  blind reaches them: a new player posts a big blind (live), a player with MB posts a
  big blind (live) and a small blind (dead), a player with only MS posts the small blind
  (dead). A new player or a player with only MS whose seat is between the button
  (included) and the big blind must wait until the button has passed it. The rules do
  not restrict MB, so a player with MB may post back in from any seat.
* Heads-up (R7): when two players are dealt in, the big blind still moves forward as
  above and the other player takes the button and posts the small blind. So in a
  three-to-two transition nobody gets the big blind twice in a row (the button moves,
  if need be, to the player who had the big blind); a player who would post in
  heads-up becomes the button and posts only the small blind: the big blind reaches
  them next deal anyway, so the entry post and any markers are waived.
* Restart: if only one player would be dealt in while others wait (everyone else left or
  sat out and new players are waiting for a big blind that cannot move without a deal),
  the waiting players are dealt in without entry posts, as at the first deal.
* Two-to-three: if the big blind lands on last deal's button seat (the new player sat
  down between the heads-up button and big blind), or seat changes otherwise break the
  clockwise order button, small blind, big blind, the button moves to the seat just
  before the small blind's; the join rule above then applies from that button.

Ante games (R27, R28): no blinds, no markers; the button moves to the next player dealt
in (the deal passes to the left, also after a dead Jackpots deal), and waiting players
are dealt in at the next deal, except that while a dead deal's pot is carried only the
players already seated in play until it is won (unless fewer than two would be left).

Chips (R26): the table's chips are the seat stacks plus the carried pot; only
:meth:`Table.join`, :meth:`Table.add_chips` and leaving change them, and
:meth:`Table.finish_hand` checks that after every deal.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from arena.engine._config import ForcedBets, GameConfig
from arena.engine._deck import Deck
from arena.engine._errors import EngineInvariantError
from arena.engine._hand import Hand
from arena.engine._seating import (
    BustPolicy,
    DealPlan,
    HandSettlement,
    PlayerRecord,
    Positions,
    SeatInfo,
    SeatState,
    TableError,
    TableStatistics,
    between,
    button_index,
    clockwise,
)
from arena.engine._start import BlindPlan, ForcedPost

_EMPTY = SeatState.EMPTY
_ACTIVE = SeatState.ACTIVE
_WAITING = SeatState.WAITING
_OUT = SeatState.SITTING_OUT


class Table:
    """The seats of one table across deals; see the module docstring for the rules."""

    def __init__(
        self,
        config: GameConfig,
        *,
        seats: int = 7,
        rng: random.Random | None = None,
        first_button: int | None = None,
        on_bust: BustPolicy | str = BustPolicy.SIT_OUT,
    ) -> None:
        if not 2 <= seats <= 7:
            raise TableError(f"a table has 2 to 7 seats (R1), got {seats}")
        if first_button is not None and not 0 <= first_button < seats:
            raise TableError(f"first_button {first_button} is not a seat of {seats}")
        self.config = config
        self.on_bust = BustPolicy(on_bust)
        self._seats: list[PlayerRecord | None] = [None] * seats
        self._rng = rng
        self._first_button = first_button
        self._blinds = config.forced_bets is ForcedBets.BLINDS
        self._carried = 0
        self._total = 0
        self._hands = 0
        self._hand: Hand | None = None
        self._positions: Positions | None = None
        self._sb_position: int | None = None  # last deal's small blind seat, posted or dead

    # --- seating ------------------------------------------------------------------

    def join(self, seat: int, name: str, stack: int, *, post_now: bool = False) -> None:
        """Seat ``name`` with ``stack`` chips (R21).

        Before the first deal the player is simply active. After it, in a blind game the
        player waits: for the big blind, or, with ``post_now``, to post a big blind and
        play at once where R21 allows it. In an ante game the player plays from the next deal.
        """
        self._check_seat(seat)
        if self._seats[seat] is not None:
            raise TableError(f"seat {seat} is taken")
        if not isinstance(stack, int) or isinstance(stack, bool) or stack <= 0:
            raise TableError(f"a player joins with a positive whole number of chips, got {stack!r}")
        if any(p is not None and p.name == name for p in self._seats):
            raise TableError(f"{name!r} is already seated")
        if self._hands == 0:
            player = PlayerRecord(name, stack, _ACTIVE)
        elif self._blinds:
            player = PlayerRecord(name, stack, _WAITING, owes_entry=True, wants_to_post=post_now)
        else:
            player = PlayerRecord(name, stack, _WAITING if self._carried else _ACTIVE)
        self._seats[seat] = player
        self._total += stack

    def leave(self, seat: int) -> int | None:
        """The player leaves with their stack, which is returned.

        A player dealt into the running deal leaves when it ends (returns None; the
        chips are in :attr:`HandSettlement.departed`).
        """
        player = self._player(seat)
        if self._in_hand(seat):
            player.leave_after_deal()
            return None
        self._seats[seat] = None
        self._total -= player.stack
        return player.stack

    def sit_out(self, seat: int) -> None:
        """Sit the player out from the next deal (a pause, or a crashed bot: R25).

        A player in the running deal plays it out (the dealer applies defaults).
        """
        self._player(seat).sit_out()

    def sit_in(self, seat: int, *, post_missed: bool = False) -> None:
        """Bring a sitting-out or waiting player back (R22).

        A player who owes nothing is dealt into the next deal. One with markers (or a new
        player who has not posted yet) waits: for the big blind, or, with
        ``post_missed``, to post what is owed at the first deal R21/R22 allow.
        """
        player = self._player(seat)
        if player.stack <= 0:
            raise TableError(f"seat {seat} has no chips: add chips before sitting in")
        if player.state is _ACTIVE:
            return
        if not self._blinds or self._hands == 0 or not player.owes:
            player.activate()
        else:
            player.wait(post_missed)

    def add_chips(self, seat: int, amount: int) -> None:
        """Add chips to a seated player's stack between deals (a rebuy)."""
        player = self._player(seat)
        if self._in_hand(seat):
            raise TableError(f"seat {seat} is in the running deal: add chips after it")
        if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
            raise TableError(f"add a positive whole number of chips, got {amount!r}")
        player.set_stack(player.stack + amount)
        self._total += amount

    def reset_stack(self, seat: int, stack: int) -> None:
        """Set a seated player's stack between deals (research matches reset every hand).

        Like :meth:`add_chips` and :meth:`leave`, this changes the table's chips on
        purpose; a bust player who sat out is dealt in again by :meth:`sit_in`.
        """
        player = self._player(seat)
        if self._in_hand(seat):
            raise TableError(f"seat {seat} is in the running deal: reset it after")
        if not isinstance(stack, int) or isinstance(stack, bool) or stack <= 0:
            raise TableError(f"a stack is a positive whole number of chips, got {stack!r}")
        self._total += stack - player.stack
        player.set_stack(stack)

    # --- queries ------------------------------------------------------------------

    @property
    def seat_count(self) -> int:
        return len(self._seats)

    @property
    def hand(self) -> Hand | None:
        """The running deal, if any."""
        return self._hand

    @property
    def positions(self) -> Positions | None:
        """The running or last deal's positions."""
        return self._positions

    @property
    def carried_pot(self) -> int:
        return self._carried

    @property
    def hands_dealt(self) -> int:
        return self._hands

    @property
    def seats(self) -> tuple[SeatInfo, ...]:
        return tuple(self.seat_info(seat) for seat in range(len(self._seats)))

    def seat_info(self, seat: int) -> SeatInfo:
        self._check_seat(seat)
        player = self._seats[seat]
        return SeatInfo(seat) if player is None else player.info(seat, self._in_hand(seat))

    def statistics(self) -> TableStatistics:
        return TableStatistics(
            self._hands,
            self._positions,
            self._carried,
            self.total_chips(),
            self._hand is not None,
            self.seats,
        )

    def total_chips(self) -> int:
        """Seat stacks plus the carried pot (stacks as they were when a running deal began)."""
        return sum(p.stack for p in self._seats if p is not None) + self._carried

    def check_invariants(self) -> None:
        """Raise :class:`EngineInvariantError` if chips appeared or vanished (R26)."""
        total = self.total_chips()
        if total != self._total:
            raise EngineInvariantError(
                f"the table holds {total} chips but players brought {self._total} (R26)"
            )
        for seat, player in self._occupied():
            if player.stack < 0:
                raise EngineInvariantError(f"seat {seat} has a negative stack {player.stack}")

    def can_start(self) -> bool:
        """Whether :meth:`start_hand` would deal now."""
        if self._hand is not None:
            return False
        try:
            self._plan()
        except TableError:
            return False
        return True

    # --- deals --------------------------------------------------------------------

    def start_hand(self, deck: Deck) -> Hand:
        """Deal the next hand: who plays, the button, the blinds, the posts, the carried pot."""
        if self._hand is not None:
            raise TableError("a deal is running: finish_hand it first")
        plan = self._plan()
        positions = plan.positions
        dealt = positions.dealt
        stacks = [self._player(seat).stack for seat in dealt]
        blinds = None
        if self._blinds:
            assert positions.big_blind is not None
            index = dealt.index
            blinds = BlindPlan(
                index(positions.big_blind),
                None if positions.small_blind is None else index(positions.small_blind),
                tuple(ForcedPost(index(s), live, dead) for s, live, dead in positions.posts),
            )
        hand = Hand(
            self.config,
            stacks,
            button_index(dealt, positions.button, len(self._seats)),
            deck,
            blinds=blinds,
            carried_pot=self._carried,
        )
        for seat in plan.mark_big:
            self._player(seat).miss_big_blind()
        for seat in plan.mark_small:
            self._player(seat).miss_small_blind()
        for seat in plan.entering:
            self._player(seat).activate()
        self._hand = hand
        self._positions = positions
        self._sb_position = plan.sb_position
        self._hands += 1
        return hand

    def finish_hand(self, hand: Hand) -> HandSettlement:
        """Move the chips of a finished deal back to the seats; bust and departing players go."""
        if hand is not self._hand or self._positions is None:
            raise TableError("this is not the running deal")
        if not hand.is_over:
            raise TableError("the deal is not over")
        dealt = self._positions.dealt
        before = sum(self._player(seat).stack for seat in dealt) + self._carried
        after = sum(hand.stacks) + hand.carried_out
        if before != after:
            raise EngineInvariantError(f"the deal took {before} chips and gave back {after} (R26)")
        self._carried = hand.carried_out
        for index, seat in enumerate(dealt):
            self._player(seat).set_stack(hand.stacks[index])
        self._hand = None
        busted: list[int] = []
        departed: list[tuple[int, str, int]] = []
        for seat, player in list(self._occupied()):
            if player.stack == 0 and seat in dealt:
                busted.append(seat)
                player.sit_out()
                if self.on_bust is BustPolicy.LEAVE:
                    player.leave_after_deal()
            if player.leaving:
                departed.append((seat, player.name, player.stack))
                self._seats[seat] = None
                self._total -= player.stack
        self.check_invariants()
        payoffs = hand.payoffs or [0] * len(dealt)
        return HandSettlement(
            self._hands,
            tuple(zip(dealt, payoffs, strict=True)),
            self._carried,
            tuple(busted),
            tuple(departed),
        )

    # --- planning a deal ----------------------------------------------------------

    def _plan(self) -> DealPlan:
        if not self._blinds:
            return self._plan_antes()
        if self._positions is None:
            return self._plan_first()
        return self._plan_blinds()

    def _plan_first(self) -> DealPlan:
        """The first deal: a drawn button, then the small and big blind (R5, R6, R7)."""
        active = [seat for seat, p in self._occupied() if p.state is _ACTIVE]
        if len(active) < 2:
            raise TableError(f"{len(active)} active player(s): a deal needs at least 2 (R1)")
        button = self._draw_button(active)
        if len(active) == 2:
            small = button
            big = active[1 - active.index(button)]
        else:
            small = self._next(button, active)
            big = self._next(small, active)
        return DealPlan(Positions(button, small, big, tuple(active)), sb_position=small)

    def _plan_blinds(self) -> DealPlan:
        """Every later blind deal: the moving big blind and the dead button (R20-R22)."""
        last = self._positions
        assert last is not None and last.big_blind is not None
        seats = len(self._seats)
        last_bb = last.big_blind
        candidates = [
            seat
            for seat in clockwise(last_bb, seats)
            if (p := self._seats[seat]) is not None and p.state in (_ACTIVE, _WAITING)
        ]
        if len(candidates) < 2:
            raise TableError("fewer than 2 players are playing or waiting: no deal (R1)")
        big = candidates[0]
        mark_big = tuple(
            seat
            for seat in range(seats)
            if between(last_bb, seat, big, seats) and self._is_out(seat)
        )
        sb_position = last_bb
        button = self._sb_position if self._sb_position is not None else last.button
        if not between(button, sb_position, big, seats):
            button = (sb_position - 1) % seats  # seat changes broke the order (two-to-three)
        dealt = {seat for seat, p in self._occupied() if p.state is _ACTIVE}
        dealt.add(big)
        entering = {big}
        posts = self._entry_posts(button, big)
        entering.update(posts)
        dealt.update(posts)
        if len(dealt) < 2:  # one player left playing: restart with everyone waiting, free
            entering.update(candidates)
            dealt.update(candidates)
        mark_small = (sb_position,) if self._is_out(sb_position) else ()
        small: int | None
        if len(dealt) == 2:  # heads-up (R7): the other player has the button and the small blind
            (small,) = dealt - {big}
            button = small
            posts.pop(small, None)
        else:
            occupant = self._seats[sb_position]
            live_small = occupant is not None and occupant.state is _ACTIVE
            small = sb_position if live_small and sb_position not in posts else None
        positions = Positions(
            button,
            small,
            big,
            tuple(sorted(dealt)),
            tuple((seat, live, dead) for seat, (live, dead) in sorted(posts.items())),
        )
        return DealPlan(
            positions,
            tuple(sorted(entering)),
            mark_big,
            mark_small,
            sb_position=small if len(dealt) == 2 else sb_position,
        )

    def _entry_posts(self, button: int, big: int) -> dict[int, tuple[int, int]]:
        """Waiting players who chose to post and may (R21, R22): seat -> (live, dead) post."""
        seats = len(self._seats)
        big_blind = self.config.big_blind
        small_blind = self.config.small_blind
        assert big_blind is not None and small_blind is not None
        posts: dict[int, tuple[int, int]] = {}
        for seat, player in self._occupied():
            if player.state is not _WAITING or seat == big or not player.wants_to_post:
                continue
            if player.waits_for_button and between(button, seat, big, seats, include_start=True):
                continue  # R21/R22: wait until the button has passed
            posts[seat] = player.entry_post(big_blind, small_blind)
        return posts

    def _plan_antes(self) -> DealPlan:
        """An ante game: everyone seated plays; the deal passes to the left (R27, R28)."""
        active = [seat for seat, p in self._occupied() if p.state is _ACTIVE]
        waiting = [seat for seat, p in self._occupied() if p.state is _WAITING]
        entering = waiting if not self._carried or len(active) < 2 else []
        dealt = sorted(active + entering)
        if len(dealt) < 2:
            raise TableError(
                f"{len(dealt)} player(s) can be dealt in: a deal needs at least 2 (R1)"
            )
        if self._positions is None:
            button = self._draw_button(dealt)
        else:
            button = self._next(self._positions.button, dealt)
        return DealPlan(Positions(button, None, None, tuple(dealt)), tuple(entering))

    # --- helpers ------------------------------------------------------------------

    def _draw_button(self, active: list[int]) -> int:
        """R5: the first button, given or drawn at random among the active seats."""
        if self._first_button is not None:
            if self._first_button in active:
                return self._first_button
            return self._next(self._first_button, active)
        rng = self._rng if self._rng is not None else random.SystemRandom()
        return active[int(rng.random() * len(active))]

    def _next(self, seat: int, among: list[int]) -> int:
        """The first seat of ``among`` strictly after ``seat``, clockwise."""
        for other in clockwise(seat, len(self._seats)):
            if other in among:
                return other
        raise TableError(f"no seat after {seat}")  # pragma: no cover - among is never empty

    def _occupied(self) -> Iterator[tuple[int, PlayerRecord]]:
        for seat, player in enumerate(self._seats):
            if player is not None:
                yield seat, player

    def _is_out(self, seat: int) -> bool:
        player = self._seats[seat]
        return player is not None and player.state is _OUT

    def _in_hand(self, seat: int) -> bool:
        return (
            self._hand is not None and self._positions is not None and seat in self._positions.dealt
        )

    def _check_seat(self, seat: int) -> None:
        if not isinstance(seat, int) or not 0 <= seat < len(self._seats):
            raise TableError(f"seat {seat!r} is not a seat of this {len(self._seats)}-seat table")

    def _player(self, seat: int) -> PlayerRecord:
        self._check_seat(seat)
        player = self._seats[seat]
        if player is None:
            raise TableError(f"seat {seat} is empty")
        return player
