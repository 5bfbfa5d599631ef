"""Replay a PHH hand through the engine, action by action.

The deck is stacked so that the engine deals exactly the file's cards: the hole cards
one at a time from ``p1`` (R9), then each draw's replacements in draw order (the
engine deals them at each discard). When the file's draws run past the stub, the
engine's R17 reshuffle is steered, through the deck's random source, to put the
file's next cards on top; cards the reshuffle could not hold are an error.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from arena.engine import (
    FULL_DECK,
    STANDARD_DECK,
    Action,
    BetRaise,
    Call,
    Card,
    CardParseError,
    CardsDrawn,
    Deck,
    Discard,
    Fold,
    Hand,
    HoleCardsDealt,
    IllegalActionError,
    format_cards,
    parse_card,
)
from arena.history._errors import PhhFormatError, ReplayError
from arena.history._load import PhhHand

_PLAYER_VERBS = {"f", "cc", "cbr", "sd", "sm", "pb"}


class _Step(NamedTuple):
    index: int  # type: ignore[assignment]  # a field may shadow tuple.index; never called
    text: str
    verb: str  # "dh", "f", "cc", "cbr", "sd", "sm" or "" (no-op)
    player: int = -1
    cards: tuple[Card | None, ...] | None = None  # None inside: an unknown card "??"
    amount: int = 0


class _ReshuffleMismatch(Exception):
    def __init__(self, card: Card) -> None:
        super().__init__(card)
        self.card = card


class _SteeredShuffle(random.Random):
    """A random source whose ``shuffle`` puts the file's next cards on top (R17 replays)."""

    def __init__(self, plan: Sequence[Card], dealt: int) -> None:
        super().__init__(0)
        self._plan = plan
        self._next = dealt

    def shuffle(self, x: list) -> None:  # type: ignore[override]  # takes only the list; the deck never passes more
        wanted = list(self._plan[self._next : self._next + len(x) - 1])
        rest = list(x)
        for card in wanted:
            if card not in rest:
                raise _ReshuffleMismatch(card)
            rest.remove(card)
        x[:] = wanted + rest
        self._next += len(x) - 1


def replay(record: PhhHand, *, allow_incomplete: bool = False) -> Hand:
    """Rebuild the hand of ``record`` and apply every action through the engine.

    Returns the finished :class:`Hand`, its seat k being the file's player ``p{k+1}``
    (so the button is seat n-1). Raises :class:`ReplayError` naming the file, the hand
    and the action when an action is not legal, cards are unknown or impossible, the
    actions stop before the hand is over (unless ``allow_incomplete``), or the file's
    ``finishing_stacks`` differ from the replay's; :class:`PhhFormatError` when an
    action line does not parse.
    """
    n = len(record.starting_stacks)
    steps = [_parse(record, i, text, n) for i, text in enumerate(record.actions, start=1)]
    plan, replacements = _deal_plan(record, steps, n)
    deck = _stacked_deck(record, plan, n)
    try:
        hand = Hand(
            record.config,
            record.starting_stacks,
            n - 1,
            deck,
            blinds=record.blind_plan,
            carried_pot=record.carried_pot,
        )
    except (ValueError, IndexError) as error:
        raise _error(record, f"cannot start the hand: {error}") from None
    shows = [step for step in steps if step.verb == "sm"]
    for step in steps:
        if step.verb not in ("", "dh", "sm"):  # the deal is the stacked deck's
            _apply_step(record, hand, step, replacements)
    if not hand.is_over and not allow_incomplete:
        raise _error(record, f"the actions end before the hand is over (p{hand.actor + 1} to act)")  # type: ignore[operator]  # a hand not over has an actor
    _check_shows(record, hand, shows)
    if record.finishing_stacks is not None and hand.is_over:
        if list(record.finishing_stacks) != hand.stacks:
            raise _error(
                record,
                f"finishing_stacks {list(record.finishing_stacks)} differ from the replay's "
                f"{hand.stacks}",
            )
    return hand


def _apply_step(
    record: PhhHand, hand: Hand, step: _Step, replacements: Mapping[int, Sequence[int]]
) -> None:
    """Play one action line; a draw must deal exactly the cards the file says."""
    if hand.is_over:
        raise _error(record, "the hand is already over", step)
    actor = hand.actor
    if actor != step.player:
        turn = f"p{actor + 1}" if actor is not None else "nobody"
        raise _error(record, f"p{step.player + 1} acts out of turn: {turn} is to act", step)
    try:
        events = hand.apply(_action(record, step))
    except IllegalActionError as error:
        raise _error(record, f"not legal: {error}", step) from None
    except _ReshuffleMismatch as mismatch:
        raise _error(
            record,
            f"{mismatch.card} cannot be dealt after the stub runs out: the R17 reshuffle "
            "holds only the stub's last card and other players' discards and folded cards",
            step,
        ) from None
    if step.verb == "sd":
        drawn = next(e.drawn for e in events if type(e) is CardsDrawn)
        expected = replacements.get(step.index, ())
        if tuple(drawn) != tuple(expected):
            raise _error(
                record,
                f"draws {format_cards(drawn)} but the file deals {format_cards(expected)}",
                step,
            )


def _error(record: PhhHand, problem: str, step: _Step | None = None) -> ReplayError:
    return ReplayError(
        problem,
        source=record.source,
        hand=record.name,
        action=None if step is None else step.text,
        action_index=None if step is None else step.index,
    )


def _parse(record: PhhHand, index: int, text: str, n: int) -> _Step:
    def fail(problem: str) -> PhhFormatError:
        return PhhFormatError(
            problem, source=record.source, hand=record.name, action=text, action_index=index
        )

    words = text.split("#", 1)[0].split()
    if not words:
        return _Step(index, text, "")

    def player(word: str) -> int:
        number = _number(word[1:]) if word.startswith("p") else None
        if number is None or not 1 <= number <= n:
            raise fail(f"{word!r} is not a player of this hand (p1..p{n})")
        return number - 1

    def cards(word: str) -> tuple[Card | None, ...]:
        if len(word) % 2:
            raise fail(f"{word!r} is not a list of cards")
        parsed: list[Card | None] = []
        for i in range(0, len(word), 2):
            chunk = word[i : i + 2]
            try:
                parsed.append(None if "?" in chunk else parse_card(chunk))
            except CardParseError:
                raise fail(f"{chunk!r} is not a card") from None
        return tuple(parsed)

    if words[0] == "d":
        if len(words) == 4 and words[1] == "dh":
            return _Step(index, text, "dh", player(words[2]), cards(words[3]))
        if len(words) >= 2 and words[1] == "db":
            raise fail("Five Card Draw has no board cards")
        raise fail("not a dealer action ('d dh pN CARDS')")
    if len(words) >= 2 and words[1] in _PLAYER_VERBS:
        who, verb, args = player(words[0]), words[1], words[2:]
        if verb == "pb":
            raise fail("Five Card Draw has no bring-in")
        if verb in ("f", "cc") and not args:
            return _Step(index, text, verb, who)
        if verb == "cbr" and len(args) == 1:
            amount = _number(args[0])
            if amount is None:
                raise fail(f"{args[0]!r} is not a whole number of chips (digits 0-9)")
            return _Step(index, text, verb, who, amount=amount)
        if verb == "sd" and len(args) <= 1:
            return _Step(index, text, verb, who, cards(args[0]) if args else ())
        if verb == "sm" and len(args) <= 1:
            shown = None if not args or args[0] == "-" else cards(args[0])
            return _Step(index, text, verb, who, shown)
    raise fail("not a PHH action (pN f | pN cc | pN cbr X | pN sd [CARDS] | pN sm [CARDS])")


_DIGITS = re.compile(r"[0-9]{1,18}")


def _number(word: str) -> int | None:
    """A whole number written in ASCII digits (at most 18), else None.

    ``str.isdigit`` accepts ``²`` (which ``int`` refuses) and ``٣`` (which ``int``
    reads as 3): a hand history's numbers are ASCII only.
    """
    return int(word) if _DIGITS.fullmatch(word) else None


def _action(record: PhhHand, step: _Step) -> Action:
    if step.verb == "f":
        return Fold()
    if step.verb == "cc":
        return Call()
    if step.verb == "cbr":
        return BetRaise(step.amount)
    if None in step.cards:  # type: ignore[operator]  # an sd step always has its cards
        raise _error(record, "unknown cards ('??') discarded: the replay needs every card", step)
    return Discard(tuple(step.cards))  # type: ignore[arg-type]  # no None left, checked above


def _deal_plan(record: PhhHand, steps: list[_Step], n: int) -> tuple[list[Card], dict[int, tuple]]:
    """Every card the hand deals, in deck order, and each ``sd`` step's replacements."""
    holes: list[list[Card]] = [[] for _ in range(n)]
    pending: list[list[Card]] = [[] for _ in range(n)]
    draws: list[_Step] = []
    drawing = False
    for step in steps:
        if step.verb == "sd":
            drawing = True
            if step.cards:
                draws.append(step)
        elif step.verb == "dh":
            if None in step.cards:  # type: ignore[operator]  # a dh step always has its cards
                raise _error(
                    record,
                    "unknown cards ('??') dealt: the arena replays only hands whose every "
                    "dealt card is known",
                    step,
                )
            (pending if drawing else holes)[step.player].extend(step.cards)  # type: ignore[arg-type]  # no None left, checked above
    for k, hole in enumerate(holes):
        if len(hole) != 5:
            raise _error(
                record, f"p{k + 1} is dealt {len(hole)} cards before the draw; expected 5 (R9)"
            )
    plan = [holes[k][j] for j in range(5) for k in range(n)]
    replacements: dict[int, tuple] = {}
    for step in draws:
        cards = pending[step.player]
        count = len(step.cards)  # type: ignore[arg-type]  # draws holds only sd steps with cards
        if len(cards) < count:
            raise _error(
                record,
                f"p{step.player + 1} discards {count} but is dealt {len(cards)} replacements",
                step,
            )
        replacements[step.index] = tuple(cards[:count])
        del cards[:count]
        plan.extend(replacements[step.index])
    for k, cards in enumerate(pending):
        if cards:
            raise _error(
                record,
                f"p{k + 1} is dealt {format_cards(cards)} at the draw without discarding them",
            )
    return plan, replacements


def _stacked_deck(record: PhhHand, plan: list[Card], n: int) -> Deck:
    """A deck dealing ``plan`` in order; past the first stub, the steered R17 reshuffle."""
    cards = FULL_DECK if record.config.uses_joker else STANDARD_DECK
    first = plan[: len(cards) - 1]
    seen: set[Card] = set()
    for card in first:
        if card not in cards:
            raise _error(record, f"{card} is not in this game's deck (R2)")
        if card in seen:
            raise _error(record, f"{card} is dealt twice from the same stub")
        seen.add(card)
    stub = first + [card for card in cards if card not in seen]
    return Deck.stacked(stub, rng=_SteeredShuffle(plan, len(cards) - 1))


def _check_shows(record: PhhHand, hand: Hand, shows: list[_Step]) -> None:
    """A ``pN sm CARDS`` line may only show cards that player held."""
    held: dict[int, set[Card]] = {seat: set() for seat in range(hand.n)}
    for event in hand.events:
        if type(event) is HoleCardsDealt:
            held[event.seat].update(event.cards)
        elif type(event) is CardsDrawn:
            held[event.seat].update(event.drawn)
    for step in shows:
        for card in step.cards or ():
            if card is not None and card not in held[step.player]:
                raise _error(record, f"p{step.player + 1} never held {card}", step)
