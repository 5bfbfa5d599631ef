"""The one public view of a finished hand: what a spectator may see, built on the server.

Every page (the replayer, the live stream, the report) reads hands through
:func:`public_hand`, so redaction happens once, here, and never in a browser where a bot
author could read what was sent. The spectator's events are taken from the engine's own
seat views: each event is read from the view of a seat that does not own it, where the
engine has already replaced another seat's hidden cards with counts (R9, R16). Only a
card in a :class:`~arena.engine.HandShown` (shown at showdown, R18/R19, or openers
proven, R29) can then reach the record. ``reveal=True`` (a director's replay, after the
event) reads the referee's own record instead, every hole card and draw included.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from arena.engine import (
    PRIVATE_EVENTS,
    AntePosted,
    BetOrRaised,
    BlindKind,
    BlindPosted,
    Called,
    CardsDealtCount,
    CardsDrawn,
    Checked,
    DrawCount,
    EngineInvariantError,
    Event,
    Folded,
    Hand,
    HandDead,
    HandMucked,
    HandShown,
    HoleCardsDealt,
    PotAwarded,
    RoundStarted,
    StubReshuffled,
    UncalledReturned,
    describe,
)
from arena.history import load_phh, replay
from arena.text import escape_untrusted
from arena.web._faults import FaultPlacer, fault_step, faults_by_hand, rotation_names

_BLIND_TEXT = {
    BlindKind.SMALL: "the small blind",
    BlindKind.BIG: "the big blind",
    BlindKind.DEAD_SMALL: "a dead small blind",
}
_STREET_TEXT = {
    "predraw": "Betting before the draw",
    "draw": "The draw",
    "postdraw": "Betting after the draw",
}


def spectator_events(hand: Hand) -> list[Event]:
    """The hand's events as a spectator sees them, from the engine's seat views.

    Event ``i`` of every seat's view is the hand's event ``i``; each is taken from the
    view of the next seat, which never owns it, so private events arrive as their public
    twins. A private event left over would be an engine bug: it raises.
    """
    views = [hand.view(seat).events for seat in range(hand.n)]
    events: list[Event] = []
    for i, event in enumerate(views[0]):
        owner = getattr(event, "seat", None)
        public = views[(owner + 1) % hand.n][i] if isinstance(owner, int) else event
        if isinstance(public, PRIVATE_EVENTS):
            raise EngineInvariantError(f"a seat view holds another seat's cards: {public!r}")
        events.append(public)
    return events


class _Tally:
    """Stacks, bets and the pot as the steps go, from the chips each event moves."""

    def __init__(self, hand: Hand) -> None:
        self.stacks = list(hand.starting_stacks)
        self.bets = [0] * hand.n
        # chips a dead hand carried in (R28), by conservation (R26)
        self.pot = sum(hand.stacks) + hand.carried_out - sum(hand.starting_stacks)

    def take(self, seat: int, amount: int, *, bet: int | None = None) -> None:
        self.stacks[seat] -= amount
        self.pot += amount
        if bet is not None:
            self.bets[seat] = bet

    def give(self, seat: int, amount: int) -> None:
        self.stacks[seat] += amount
        self.pot -= amount

    def collect(self) -> None:
        self.bets = [0] * len(self.bets)


def public_hand(
    hand: Hand,
    seats: Sequence[int],
    names: Sequence[str],
    *,
    number: int,
    reveal: bool = False,
    faults: Sequence[Any] = (),
    rotation: int | None = None,
) -> dict[str, Any]:
    """A JSON-ready record of one finished hand as a spectator may see it.

    ``seats`` and ``names`` are indexed by the hand's players (table seat, bot name).
    Cards appear only where shown at showdown (R18, R19) or as proven openers (R29);
    ``reveal=True`` adds every hole card and draw, for a director's replay. Names are
    escaped (:func:`arena.text.escape_untrusted`); pages escape them again for HTML.

    The record: ``number``, ``button`` (table seat), ``reveal``, ``dead`` (R28),
    ``seats`` [{seat, name, stack (at the start)}], ``steps`` [{kind, seat (table seat or
    None), amount, drew (the draw count), cards, discarded (reveal only), pot, stacks,
    bets, text, fault (only on a marked step)}] and ``result`` [{seat, won (chips taken
    from pots), net (the payoff)}]. Each step's ``stacks`` and ``bets`` are listed in the
    order of ``seats``.

    ``faults`` are this hand's :class:`arena.dealer.FaultRecord` (or their ``log.jsonl``
    lines): the action played for one is marked (``fault`` {reason, why, detail}, and
    its text says so), any other is a step of kind ``fault`` (:mod:`arena.web._faults`).
    ``rotation`` (a duplicate rotation's number, 2 or more) is kept as a note.
    """
    if not hand.is_over:
        raise ValueError("only a finished hand has a public record")
    if len(seats) != hand.n or len(names) != hand.n:
        raise ValueError(f"{hand.n} players need {hand.n} seats and names")
    shown_names = [escape_untrusted(str(name), one_line=True) for name in names]
    tally = _Tally(hand)
    events = hand.events if reveal else spectator_events(hand)
    steps = _steps(
        events, tally, shown_names, seats, FaultPlacer(faults, reveal=reveal, events=len(events))
    )
    won = [0] * hand.n
    for event in hand.events:
        if type(event) is PotAwarded:
            won[event.seat] += event.amount
    payoffs = hand.payoffs or [0] * hand.n
    return {
        "number": number,
        "button": seats[hand.button],
        "reveal": reveal,
        "dead": hand.dead,
        "seats": [
            {"seat": seats[k], "name": shown_names[k], "stack": hand.starting_stacks[k]}
            for k in range(hand.n)
        ],
        "rotation": rotation,
        "steps": steps,
        "result": [{"seat": seats[k], "won": won[k], "net": payoffs[k]} for k in range(hand.n)],
    }


def _steps(
    events: Sequence[Event],
    tally: _Tally,
    names: Sequence[str],
    seats: Sequence[int],
    placer: FaultPlacer,
) -> list[dict[str, Any]]:
    """The hand's steps, each fault marking the action played for it or a step of its own."""
    by_seat = {seats[k]: names[k] for k in range(len(seats))}
    steps: list[dict[str, Any]] = []
    chips = _chips_now(tally)  # what a fault step shows: the chips before the next step
    for index, event in enumerate(events):
        step = _step(event, tally, names, seats)
        if step is None:
            continue
        if step["seat"] is not None:
            placer.mark(index, step, by_seat[step["seat"]])
        steps.extend(fault_step(f, by_seat, chips) for f in placer.before(index + 1))
        steps.append(step)
        chips = _chips_now(tally)
    steps.extend(fault_step(f, by_seat, chips) for f in placer.rest())
    return steps


def _chips_now(tally: _Tally) -> dict[str, Any]:
    return {"pot": tally.pot, "stacks": list(tally.stacks), "bets": list(tally.bets)}


def _step(
    event: Event, tally: _Tally, names: Sequence[str], seats: Sequence[int]
) -> dict[str, Any] | None:
    """One event as a step: what moved, the chips after it, and a line of text."""
    describe_event = _DESCRIBE.get(type(event))
    if describe_event is None:
        return None
    kind, text, detail = describe_event(event, tally, names)
    seat = getattr(event, "seat", None)
    return {
        "kind": kind,
        "seat": seats[seat] if isinstance(seat, int) else None,
        "amount": detail.get("amount"),
        "drew": detail.get("drew"),
        "cards": [str(card) for card in detail.get("cards", ())],
        "discarded": [str(card) for card in detail.get("discarded", ())],
        "pot": tally.pot,
        "stacks": list(tally.stacks),
        "bets": list(tally.bets),
        "text": text,
    }


_Described = tuple[str, str, dict[str, Any]]


def _ante(e: AntePosted, tally: _Tally, names: Sequence[str]) -> _Described:
    tally.take(e.seat, e.amount)
    return "post", f"{names[e.seat]} posts an ante of {e.amount}", _chips(e)


def _blind(e: BlindPosted, tally: _Tally, names: Sequence[str]) -> _Described:
    tally.take(e.seat, e.amount, bet=None if e.dead else tally.bets[e.seat] + e.amount)
    return "post", f"{names[e.seat]} posts {_BLIND_TEXT[e.kind]} of {e.amount}", _chips(e)


def _hole(e: HoleCardsDealt, tally: _Tally, names: Sequence[str]) -> _Described:
    return "deal", f"{names[e.seat]} is dealt {len(e.cards)} cards", {"cards": e.cards}


def _dealt(e: CardsDealtCount, tally: _Tally, names: Sequence[str]) -> _Described:
    return "deal", f"{names[e.seat]} is dealt {e.count} cards", {}


def _street(e: RoundStarted, tally: _Tally, names: Sequence[str]) -> _Described:
    if e.street != "predraw":
        tally.collect()
    return "street", _STREET_TEXT.get(e.street, e.street), {}


def _fold(e: Folded, tally: _Tally, names: Sequence[str]) -> _Described:
    return "fold", f"{names[e.seat]} folds", {}


def _check(e: Checked, tally: _Tally, names: Sequence[str]) -> _Described:
    return "check", f"{names[e.seat]} checks", {}


def _call(e: Called, tally: _Tally, names: Sequence[str]) -> _Described:
    tally.take(e.seat, e.amount, bet=e.to)
    all_in = " and is all in" if e.all_in else ""
    return "call", f"{names[e.seat]} calls {e.amount}{all_in}", _chips(e)


def _bet(e: BetOrRaised, tally: _Tally, names: Sequence[str]) -> _Described:
    verb = "raise" if max(tally.bets) > 0 else "bet"
    tally.take(e.seat, e.amount, bet=e.to)
    words = f"raises to {e.to}" if verb == "raise" else f"bets {e.to}"
    all_in = " and is all in" if e.all_in else ""
    return verb, f"{names[e.seat]} {words}{all_in}", _chips(e)


def _drawn(e: CardsDrawn, tally: _Tally, names: Sequence[str]) -> _Described:
    count = len(e.discarded)
    detail = {"drew": count, "cards": e.drawn, "discarded": e.discarded}
    return "draw", _draw_text(names[e.seat], count), detail


def _draw_count(e: DrawCount, tally: _Tally, names: Sequence[str]) -> _Described:
    return "draw", _draw_text(names[e.seat], e.count), {"drew": e.count}


def _reshuffle(e: StubReshuffled, tally: _Tally, names: Sequence[str]) -> _Described:
    return "reshuffle", f"The stub ran out: {e.size} cards reshuffled", {}


def _returned(e: UncalledReturned, tally: _Tally, names: Sequence[str]) -> _Described:
    tally.give(e.seat, e.amount)
    tally.bets[e.seat] = max(0, tally.bets[e.seat] - e.amount)
    return "return", f"{e.amount} uncalled returned to {names[e.seat]}", _chips(e)


def _shown(e: HandShown, tally: _Tally, names: Sequence[str]) -> _Described:
    tally.collect()
    what = "openers" if e.openers else "their hand"
    named = f": {describe(e.rank)}" if e.rank else ""
    return "show", f"{names[e.seat]} shows {what}{named}", {"cards": e.cards}


def _mucked(e: HandMucked, tally: _Tally, names: Sequence[str]) -> _Described:
    tally.collect()
    return "muck", f"{names[e.seat]} mucks", {}


def _won(e: PotAwarded, tally: _Tally, names: Sequence[str]) -> _Described:
    tally.collect()
    tally.give(e.seat, e.amount)
    pot = "the main pot" if e.pot == 0 else f"side pot {e.pot}"
    return "win", f"{names[e.seat]} wins {e.amount} from {pot}", _chips(e)


def _dead(e: HandDead, tally: _Tally, names: Sequence[str]) -> _Described:
    tally.collect()
    return "dead", f"Nobody opened: {e.pot} carries to the next deal", {}


_DESCRIBE: dict[type, Callable[[Any, _Tally, Sequence[str]], _Described]] = {
    AntePosted: _ante,
    BlindPosted: _blind,
    HoleCardsDealt: _hole,
    CardsDealtCount: _dealt,
    RoundStarted: _street,
    Folded: _fold,
    Checked: _check,
    Called: _call,
    BetOrRaised: _bet,
    CardsDrawn: _drawn,
    DrawCount: _draw_count,
    StubReshuffled: _reshuffle,
    UncalledReturned: _returned,
    HandShown: _shown,
    HandMucked: _mucked,
    PotAwarded: _won,
    HandDead: _dead,
}
"""One function per engine event: its step kind and text, moving its chips in the tally."""


def _chips(event: Any) -> dict[str, Any]:
    return {"amount": event.amount}


def _draw_text(name: str, count: int) -> str:
    if count == 0:
        return f"{name} stands pat"
    return f"{name} draws {count} card{'s' * (count != 1)}"


def public_match(
    path: Path | str,
    *,
    reveal: bool = False,
    faults: Mapping[int, Sequence[Any]] | None = None,
) -> list[dict[str, Any]]:
    """:func:`public_hand` of every hand of a recorded match's ``hands.phhs``.

    ``faults`` by hand number; by default the ``fault`` lines of the ``log.jsonl`` next
    to the file (none when it is missing). A duplicate rotation's players, named
    ``NAME.k`` by their instances, are shown by their bots' names with the rotation
    noted. Each hand is replayed through the engine (:func:`arena.history.replay`), so a
    file that does not replay raises :class:`arena.history.PhhError`, naming the hand.
    """
    path = Path(path)
    records = load_phh(path.read_text(encoding="utf-8"), source=str(path))
    if faults is None:
        faults = _logged_faults(path.parent / "log.jsonl")
    known = {str(name) for record in records for name in (record.players or ())}
    hands = []
    for index, record in enumerate(records, start=1):
        hand = replay(record)
        n = hand.n
        given: Any = record.fields.get("seats")
        seats: list[int] = given if _ints(given, n) else list(range(n))
        names = [str(name) for name in record.players] if record.players is not None else None
        if names is None:
            names = [f"p{k + 1}" for k in range(n)]
        names, rotation = rotation_names(names, known)
        number = record.fields.get("hand")
        if not isinstance(number, int) or isinstance(number, bool):
            number = index
        hands.append(
            public_hand(
                hand,
                seats,
                names,
                number=number,
                reveal=reveal,
                faults=faults.get(number, ()),
                rotation=rotation,
            )
        )
    return hands


def _logged_faults(log: Path) -> dict[int, list[dict[str, Any]]]:
    try:
        with log.open(encoding="utf-8", errors="replace") as lines:
            return faults_by_hand(lines)
    except OSError:
        return {}


def _ints(value: Any, n: int) -> bool:
    return (
        isinstance(value, list)
        and len(value) == n
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    )
