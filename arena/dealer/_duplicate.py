"""Matches: one table, or duplicate dealing as one table per rotation.

Duplicate dealing deals every deck once with the button on each seat, to cut the card
luck. Played on one table by the same processes, a bot that remembers its cards would
know its opponent's next hand (issue 9 item 3), so here each rotation is its own table:
``n`` tables (one per seat), each dealing deck ``d`` with the button on seat ``(k + d)
mod n`` at table ``k``. Given a fresh
driver (process, sandbox) per (seat, table), no process ever sees a deck twice.

The tables play in lockstep (hand ``i`` at every table, then the next), but each in its
own secret order of the decks (:func:`arena.dealer._deal.rotation_orders`), and never
the same deck as another table at the same time, however short the match: a bot's
instances that found a channel to each other cannot pass on the cards of a hand in play
(issue 19 item 1, audit 19e).

The results merge into one :class:`MatchResult` in deck order (deck 0 at tables
0..n-1, then deck 1, ...), the shape a single table gives, so records, statistics and
standings read it as before; a deck some table never dealt (a match ended early) comes
after every complete one. Hands and faults reach the observers in play order, numbered
``(i - 1) * n + k + 1`` for table ``k``'s hand ``i``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import trio

from arena.dealer._deal import rotation_orders
from arena.dealer._match import _MatchRunner
from arena.dealer._seat import BotDriver
from arena.dealer._seat_record import HandObserver
from arena.dealer._settings import FaultRecord, MatchResult, MatchSettings, with_seed
from arena.engine import Hand


class _Rotation:
    """One table of a duplicate match, its observer calls held until the block is done."""

    def __init__(
        self, index: int, runner_of: Callable[[_Rotation], _MatchRunner], wall_spent: set[int]
    ) -> None:
        self.index = index
        self.wall_spent = wall_spent  # one set for every table (see _MatchRunner)
        self.hands: list[tuple[int, Hand, Sequence[int], Sequence[str]]] = []
        self.faults: list[FaultRecord] = []
        self.runner = runner_of(self)

    def on_hand(
        self, number: int, hand: Hand, players: Sequence[int], names: Sequence[str]
    ) -> None:
        self.hands.append((number, hand, players, names))

    def on_fault(self, fault: FaultRecord) -> None:
        self.faults.append(fault)


def _global_hand(table_hand: int, table: int, n: int) -> int:
    """The match-wide number of a table's hand: block order (0 stays 0: the start)."""
    return 0 if table_hand == 0 else (table_hand - 1) * n + table + 1


def _renumbered(fault: FaultRecord, table: int, n: int) -> FaultRecord:
    return dataclasses.replace(
        fault, hand_number=_global_hand(fault.hand_number, table, n), table=table
    )


def _hands_at(table: int, hands: int, n: int) -> int:
    """Hands table ``table`` plays so that all together play ``hands`` (a last block may be short)."""
    return hands // n + (1 if table < hands % n else 0)


def merge_results(
    results: Sequence[MatchResult],
    *,
    isolated: bool,
    orders: Sequence[Sequence[int]] | None = None,
    scheduled: Sequence[int] | None = None,
) -> MatchResult:
    """One MatchResult from the tables' results, payoffs in deck order (see the module
    docstring). ``orders[k]``: the deck of each of table ``k``'s hands (default: hand
    ``i`` deals deck ``i - 1``); ``scheduled[k]``: how many hands table ``k`` was to play
    (a deck is complete when every table meant to deal it did)."""
    n = len(results)
    first = results[0]
    seats = len(first.names)
    merged = MatchResult(
        match_id=first.match_id,
        names=list(first.names),
        seed=first.seed,
        hands_played=sum(r.hands_played for r in results),
        chips_won=[sum(r.chips_won[i] for r in results) for i in range(seats)],
        sat_out=[any(r.sat_out[i] for r in results) for i in range(seats)],
        hellos=[next((r.hellos[i] for r in results if r.hellos[i]), None) for i in range(seats)],
        forfeited=[any(r.forfeited[i] for r in results) for i in range(seats)],
        stale_actions=[sum(r.stale_actions[i] for r in results) for i in range(seats)],
        reason=next((r.reason for r in results if r.reason != "completed"), "completed"),
        duplicate_isolated=isolated,
    )
    merged.clocks = ["+".join(sorted({r.clocks[i] for r in results})) for i in range(seats)]
    merged.payoffs = _payoffs_by_deck(results, orders, scheduled)
    merged.repeat_chips = _repeat_chips(results, orders)
    faults = [(f.hand_number, k, f) for k, r in enumerate(results) for f in r.faults]
    faults.sort(key=lambda item: (item[0], item[1]))  # stable: each table's order kept
    merged.faults = [_renumbered(f, k, n) for _, k, f in faults]
    return merged


async def run_duplicate_match(
    tables: Sequence[Sequence[BotDriver]],
    settings: MatchSettings,
    *,
    on_hand: HandObserver | None = None,
    on_fault: Callable[[FaultRecord], None] | None = None,
    stop_when: Callable[[MatchResult], bool] | None = None,
) -> MatchResult:
    """Deal every deck once per rotation: ``tables[k][i]`` plays seat ``i`` at table ``k``.

    There are as many tables as seats, each starting with the button on seat 0 and
    all play ``settings.hands`` hands together, each deck once per table, the
    tables in their own secret orders (the button on every seat across them). Give each
    (seat, table) its own freshly started driver and no process sees a deck twice
    (``duplicate_isolated``); the same driver (or drivers naming the same ``process``,
    as the streams of a bot that dials in do) at several tables plays, with that weaker
    guarantee. ``on_hand`` and ``on_fault`` see hands and faults in play order with
    match-wide numbers; ``stop_when``, after a block that completed decks, those decks;
    a table that cannot go on (too few seats) ends all at that block.
    """
    n = len(tables)
    if not 2 <= n <= 7 or any(len(table) != n for table in tables):
        raise ValueError(f"a duplicate match has one table per seat (2 to 7), got {n} tables")
    seeded = with_seed(settings)
    processes = [id(_process_of(driver)) for table in tables for driver in table]
    isolated = len(set(processes)) == len(processes)
    scheduled, orders = _plan(seeded, n)

    def runner_of(rotation: _Rotation) -> _MatchRunner:
        return _table_runner(tables, seeded, scheduled, orders, rotation)

    def merged() -> MatchResult:
        results = [r.runner.result for r in rotations]
        return merge_results(results, isolated=isolated, orders=orders, scheduled=scheduled)

    wall_spent: set[int] = set()
    rotations = [_Rotation(k, runner_of, wall_spent) for k in range(n)]
    complete = _CompleteDecks(orders, scheduled)  # what stop_when sees
    try:
        async with trio.open_nursery() as nursery:
            for rotation in rotations:
                nursery.start_soon(rotation.runner.open_seats)
        _flush(rotations, on_hand, on_fault)
        for block in range(1, scheduled[0] + 1):
            if not await _play_block(rotations, block, on_hand, on_fault):
                break
            if stop_when is not None and complete.stops(rotations, block, merged, stop_when):
                break
    finally:
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as nursery:
                for rotation in rotations:
                    nursery.start_soon(rotation.runner.finish)
    return merged()


def _meant(orders: Sequence[Sequence[int]] | None, planned: Sequence[int]) -> dict[int, list[int]]:
    """The tables meant to deal each deck: those whose first ``planned[k]`` hands hold it."""
    meant: dict[int, list[int]] = {}
    for k, count in enumerate(planned):
        for i in range(count):
            meant.setdefault(i if orders is None else orders[k][i], []).append(k)
    return meant


def _repeat_chips(
    results: Sequence[MatchResult], orders: Sequence[Sequence[int]] | None
) -> list[int]:
    """Per seat, chips won at hands whose deck some table dealt at an earlier hand."""
    first: dict[int, int] = {}  # deck -> the first hand (0-based, at any table) it was dealt
    for k, result in enumerate(results):
        for i in range(len(result.payoffs)):
            deck = i if orders is None else orders[k][i]
            first[deck] = min(first.get(deck, i), i)
    seats = len(results[0].names)
    chips = [0] * seats
    for k, result in enumerate(results):
        for i, row in enumerate(result.payoffs):
            if first[i if orders is None else orders[k][i]] < i:
                chips = [total + won for total, won in zip(chips, row, strict=True)]
    return chips


def _payoffs_by_deck(
    results: Sequence[MatchResult],
    orders: Sequence[Sequence[int]] | None,
    scheduled: Sequence[int] | None,
) -> list[list[int]]:
    """Every hand's payoffs: complete decks in deck order (tables 0..n-1 each), then the
    hands of decks not every table dealt, table by table."""
    dealt: dict[int, dict[int, list[int]]] = {}
    for k, result in enumerate(results):
        for i, row in enumerate(result.payoffs):
            deck = i if orders is None else orders[k][i]
            dealt.setdefault(deck, {})[k] = row
    planned = [len(r.payoffs) for r in results] if scheduled is None else list(scheduled)
    complete: list[list[list[int]]] = []
    partial: list[list[list[int]]] = []
    meant_by = _meant(orders, planned)
    for deck in sorted(dealt):
        meant = meant_by.get(deck, [])
        rows = [dealt[deck][k] for k in sorted(dealt[deck])]
        (complete if all(k in dealt[deck] for k in meant) else partial).append(rows)
    return [row for rows in complete + partial for row in rows]


def _table_runner(
    tables: Sequence[Sequence[BotDriver]],
    settings: MatchSettings,
    scheduled: Sequence[int],
    orders: Sequence[Sequence[int]],
    rotation: _Rotation,
) -> _MatchRunner:
    """Table ``k`` of a duplicate match: its hands, its id, its first button, its order."""
    k = rotation.index
    table = dataclasses.replace(
        settings, hands=scheduled[k], table_id=f"{settings.table_id}.{k + 1}"
    )
    return _MatchRunner(
        tables[k],
        table,
        rotation.on_hand,
        rotation.on_fault,
        first_button=0,  # the orders put the button on every seat (rotation_orders)
        deck_order=orders[k],
        wall_spent=rotation.wall_spent,
    )


def _plan(settings: MatchSettings, n: int) -> tuple[list[int], list[list[int]]]:
    """How many hands each table plays, and the deck of each of its hands."""
    assert settings.seed is not None and settings.deal_key is not None
    scheduled = [_hands_at(k, settings.hands, n) for k in range(n)]
    return scheduled, rotation_orders(
        settings.seed, settings.deal_key, scheduled, settings.hands // n
    )


def _process_of(driver: BotDriver) -> object:
    """What plays behind ``driver``: its ``process`` when it names one (a stream leased
    from a bot that dials in names that bot, so all its tables count as one process),
    else the driver itself."""
    process = getattr(driver, "process", None)
    return driver if process is None else process


class _CompleteDecks:
    """What ``stop_when`` sees: the payoffs of the decks every table has dealt, each deck
    once complete (its ``n`` rows together), in the order they completed, so a test that
    reads only the new rows (a sequential test) sees whole duplicate blocks."""

    def __init__(self, orders: Sequence[Sequence[int]], scheduled: Sequence[int]) -> None:
        self.orders = orders
        self.scheduled = scheduled
        self.position = [{deck: i for i, deck in enumerate(order)} for order in orders]
        self.meant = _meant(orders, scheduled)
        self.rows: list[list[int]] = []
        self._seen: dict[int, int] = {}

    def add(self, rotations: Sequence[_Rotation], block: int) -> bool:
        """Take the decks ``block`` completed; whether there were any."""
        n, ready = len(rotations), []
        for k in range(n):
            if block <= self.scheduled[k]:
                deck = self.orders[k][block - 1]
                self._seen[deck] = self._seen.get(deck, 0) + 1
                if self._seen[deck] == len(self.meant[deck]):
                    ready.append(deck)
        for deck in sorted(ready):
            for k, rotation in enumerate(rotations):
                index = self.position[k].get(deck, -1)
                payoffs = rotation.runner.result.payoffs
                if 0 <= index < len(payoffs):
                    self.rows.append(payoffs[index])
        return bool(ready)

    def stops(
        self,
        rotations: Sequence[_Rotation],
        block: int,
        merged: Callable[[], MatchResult],
        stop_when: Callable[[MatchResult], bool],
    ) -> bool:
        """Ask ``stop_when`` if ``block`` completed decks; mark every table stopped if so."""
        if not self.add(rotations, block):
            return False
        if not stop_when(dataclasses.replace(merged(), payoffs=list(self.rows))):
            return False
        for rotation in rotations:
            rotation.runner.result.reason = "stopped early"
        return True


async def _play_block(
    rotations: Sequence[_Rotation],
    block: int,
    on_hand: HandObserver | None,
    on_fault: Callable[[FaultRecord], None] | None,
) -> bool:
    """Hand ``block`` at every table that has one; False when a table could not deal it."""
    playing = [r for r in rotations if r.runner.settings.hands >= block]
    played: dict[int, bool] = {}

    async def play(rotation: _Rotation) -> None:
        played[rotation.index] = await rotation.runner.play_next()

    async with trio.open_nursery() as nursery:
        for rotation in playing:
            nursery.start_soon(play, rotation)
    _flush(rotations, on_hand, on_fault)
    if all(played.values()):
        return True
    reason = next(r.runner.result.reason for r in playing if not played[r.index])
    for rotation in rotations:
        rotation.runner.result.reason = reason
    return False


def _flush(
    rotations: Sequence[_Rotation],
    on_hand: HandObserver | None,
    on_fault: Callable[[FaultRecord], None] | None,
) -> None:
    """Pass the held observer calls on in block order, hand and fault numbers match-wide."""
    n = len(rotations)
    for rotation in rotations:
        hands, rotation.hands = rotation.hands, []
        faults, rotation.faults = rotation.faults, []
        if on_fault is not None:
            for fault in faults:
                on_fault(_renumbered(fault, rotation.index, n))
        if on_hand is not None:
            for number, hand, players, names in hands:
                on_hand(_global_hand(number, rotation.index, n), hand, players, names)


async def run_match(
    drivers: Sequence[BotDriver],
    settings: MatchSettings,
    *,
    on_hand: HandObserver | None = None,
    on_fault: Callable[[FaultRecord], None] | None = None,
    stop_when: Callable[[MatchResult], bool] | None = None,
) -> MatchResult:
    """Play ``settings.hands`` hands among ``drivers`` (seat i = drivers[i]).

    ``stop_when`` is asked after every hand (after every duplicate block when dealing
    duplicate) and ends the match early when it returns True, e.g. a sequential test.
    With ``settings.duplicate`` this is :func:`run_duplicate_match` with the same
    drivers at every table: each rotation still has its own table and streams, but the
    same processes play them all, so a bot that remembers its cards can know its
    opponent's (``duplicate_isolated`` False). Use it for bots that cannot be started
    afresh (given by address); pass one fresh driver per (seat, table) otherwise.
    """
    if settings.duplicate:
        tables = [list(drivers)] * len(drivers)
        return await run_duplicate_match(
            tables, settings, on_hand=on_hand, on_fault=on_fault, stop_when=stop_when
        )
    runner = _MatchRunner(drivers, settings, on_hand, on_fault)
    await runner.open_seats()
    try:
        for _ in range(settings.hands):
            if not await runner.play_next():
                break
            if stop_when is not None and stop_when(runner.result):
                runner.result.reason = "stopped early"
                break
    finally:
        await runner.finish()
    return runner.result
