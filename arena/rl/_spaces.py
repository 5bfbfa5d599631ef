"""The fixed-size observation, the action mask and the discrete actions (no gym needed).

Every environment shares one layout whatever the number of players (seats are padded to
seven, R1), so one agent can play any table size. Everything is read from the engine:
the seat's :class:`~arena.engine.SeatView` (its own cards and the public state) and the
engine's :class:`~arena.engine.LegalActions` (the exact amounts); the engine alone judges
an action, so a mask here only says which of our discrete actions map to a legal one.

Actions (:data:`N_ACTIONS` = 38):

- 0 fold, 1 check or call;
- 2..5 bet or raise to the minimum, half the pot, the pot, the maximum (each clamped into
  the legal range; one that gives the same amount as a smaller size is masked out, so in
  fixed limit only 2 is ever legal);
- 6..37 the draw: action ``6 + m`` throws the cards whose bits are set in ``m``, bit ``i``
  being the ``i``-th of the seat's cards in :func:`sorted_cards` order (rank-major, joker
  last); 6 stands pat. Masked past ``max_discard`` (R15). Its :data:`ACTION_NAMES` label
  writes the bits card 0 first: ``discard 10000`` throws card 0.

What an action is (:func:`action_index`): a member of ``Discrete(38)`` as gymnasium's
``Discrete.contains`` defines it, an integer 0..37: a Python ``int``, a NumPy integer, a
0-d integer array, anything ``operator.index`` takes. Anything else (``None``, a string,
``True``, any float, even a whole one like ``2.0``, ``inf``, ``nan``, an array of another
shape) is a ``TypeError`` and an integer out of range a ``ValueError``, each naming the
value and the range, raised before anything is played: a bug in the agent's code, never
a poker decision, so no environment turns it into a fold or a default (PettingZoo's own
classic games refuse it likewise, with ``AssertOutOfBoundsWrapper``). Floats are refused
rather than rounded: ``int(2.9)`` is 2, a different action; an agent whose policy yields
whole floats passes ``int(a)`` itself. An index in range that the mask rules out is a
different case, the environment's illegal action (each says what it does with one).
"""

from __future__ import annotations

import operator
import reprlib
from array import array
from collections.abc import Sequence

import numpy as np

from arena.engine import (
    CALL,
    CHECK,
    FOLD,
    FULL_DECK,
    POSTDRAW_STARTED,
    Action,
    BetOrRaised,
    BetRaise,
    Called,
    Card,
    Checked,
    Discard,
    Event,
    Hand,
    LegalActions,
    Phase,
    SeatView,
)

FOLD_ACTION = 0
CALL_ACTION = 1
RAISE_ACTIONS = (2, 3, 4, 5)
"""Raise to the minimum, half the pot, the pot, the maximum."""
_RAISE_POT_FRACTION = (None, 0.5, 1.0, None)
DISCARD_BASE = 6
N_ACTIONS = DISCARD_BASE + 32
ACTION_NAMES: tuple[str, ...] = (
    "fold",
    "check/call",
    "raise min",
    "raise half pot",
    "raise pot",
    "raise max",
    *("discard " + "".join("01"[m >> i & 1] for i in range(5)) if m else "stand pat"
      for m in range(32)),
)  # fmt: skip
"""A short label per action. A draw reads ``discard`` and five digits, one per card in
:func:`sorted_cards` order, card 0 first (leftmost): ``discard 10000`` (action 7) throws
card 0 alone, ``discard 00011`` (action 30) cards 3 and 4; 6 is ``stand pat``. Digit ``i``
is bit ``i`` of ``m`` in action ``6 + m``, so the string is ``m`` in binary read backwards."""

MAX_SEATS = 7
# --- the observation layout (offsets into the vector) ---
_CARDS = 0  # 53: which cards the seat holds (Card.index)
_SLOTS = 53  # 5 x 18: card i in sorted order: rank one-hot 13, suit one-hot 4, joker 1
_PHASE = _SLOTS + 5 * 18  # 4: predraw, draw, postdraw, over
_POSITION = _PHASE + 4  # 7: seats after the button (0: first after it; n-1: the button)
_PLAYERS = _POSITION + 7  # 6: 2..7 players
_SEAT_FEATURES = 8
_SEATS = _PLAYERS + 6  # 7 x 8 by seat from this one clockwise (0 is this seat)
_POT = _SEATS + MAX_SEATS * _SEAT_FEATURES  # 6: pot, current bet, call, min, max raise, carried
_HISTORY = _POT + 6  # 2 streets x 7 seats x 3: bets and raises /4, calls /4, checked
OBS_SIZE = _HISTORY + 2 * MAX_SEATS * 3
"""Length of every observation vector (float32, each entry in [0, 1])."""


def sorted_cards(cards: Sequence[Card]) -> list[Card]:
    """The seat's cards in the order the discard bits name them (rank-major, joker last)."""
    return sorted(cards, key=_ORDER.__getitem__)


def discard_action(cards: Sequence[Card], thrown: Sequence[Card]) -> int:
    """The action index that throws ``thrown`` from the hand ``cards``."""
    order = sorted_cards(cards)
    out = set(thrown)
    return DISCARD_BASE + sum(1 << i for i, card in enumerate(order) if card in out)


def raise_amounts(legal: LegalActions, pot: int, current_bet: int) -> list[int | None]:
    """The amount of each raise action (``None``: masked), in :data:`RAISE_ACTIONS` order."""
    if not legal.can_raise:
        return [None] * 4
    low, high = legal.min_raise_to, legal.max_raise_to
    base = pot + legal.call_amount  # the pot once this seat has called
    out: list[int | None] = []
    seen: set[int] = set()
    for k, fraction in enumerate(_RAISE_POT_FRACTION):
        if fraction is None:
            amount = low if k == 0 else high
        else:
            amount = max(low, min(high, current_bet + int(fraction * base)))
        out.append(None if amount in seen else amount)
        seen.add(amount)
    return out


def action_mask(
    legal: LegalActions | None,
    pot: int,
    current_bet: int,
    amounts: list[int | None] | None = None,
) -> np.ndarray:
    """1 for each action that maps to a legal one now (all 0 when the seat is not to act);
    ``amounts``: :func:`raise_amounts`, when the caller has them."""
    if legal is None:
        key: tuple[object, ...] = ()
    elif legal.phase is Phase.DRAW:
        key = (legal.max_discard,)
    else:
        if amounts is None:
            amounts = raise_amounts(legal, pot, current_bet)
        key = (legal.can_fold, *(amount is not None for amount in amounts))
    mask = _MASKS.get(key)
    if mask is None:
        mask = _MASKS[key] = _mask_of(key)
    return mask.copy()


def _mask_of(key: tuple[object, ...]) -> np.ndarray:
    mask = np.zeros(N_ACTIONS, dtype=np.int8)
    if len(key) == 1:
        limit = key[0]
        mask[DISCARD_BASE:] = [m.bit_count() <= limit for m in range(32)]  # type: ignore[operator]  # the draw's key holds max_discard, an int
    elif key:
        mask[FOLD_ACTION] = bool(key[0])
        mask[CALL_ACTION] = 1
        mask[RAISE_ACTIONS[0] : RAISE_ACTIONS[-1] + 1] = [bool(x) for x in key[1:]]
    return mask


_MASKS: dict[tuple[object, ...], np.ndarray] = {}
"""Masks by their shape (a handful exist): built once, copied out."""


def action_index(action: object) -> int:
    """``action`` as an index 0..37, or ``TypeError`` / ``ValueError`` naming it (see above)."""
    if type(action) is int and 0 <= action < N_ACTIONS:
        return action  # the common case, first and cheap: the step path
    index: int | None = None
    if not isinstance(action, bool):
        try:
            index = operator.index(action)  # type: ignore[arg-type]  # any object: TypeError if no integer
        except TypeError:
            index = None
        if index is not None and 0 <= index < N_ACTIONS:
            return index
    shown = f"{reprlib.repr(action)} ({type(action).__name__})"
    if index is None:
        raise TypeError(
            f"action {shown} is not an action index: actions are integers "
            f"0..{N_ACTIONS - 1} (floats are refused, even whole ones); the environment is unchanged"
        )
    raise ValueError(
        f"action {shown} is out of range: actions are 0..{N_ACTIONS - 1}; "
        "the environment is unchanged"
    )


def to_engine(index: int, view: SeatView) -> Action:
    """The engine action of discrete action ``index`` for the seat to act in ``view``.

    ``view`` is the engine's (``hand.view(seat)``) or a bot's (``decision.view``). Raises
    ``ValueError`` for an action the mask rules out (the engine would refuse it, or it
    names no legal amount), and as :func:`action_index` for a value that is no index.
    """
    index = action_index(index)
    if view.legal is None:
        raise ValueError(f"seat {view.seat} is not to act")
    return action_of(index, view.legal, view.hole_cards, view.pot, view.current_bet)


def action_of(
    index: int,
    legal: LegalActions,
    cards: Sequence[Card],
    pot: int,
    current_bet: int,
    amounts: list[int | None] | None = None,
) -> Action:
    """:func:`to_engine` from the parts of a view it reads (``amounts`` as for the mask);
    ``index`` is one :func:`action_index` passed (its callers check it first)."""
    if legal.phase is Phase.DRAW:
        if index < DISCARD_BASE:
            raise ValueError(f"action {index} ({ACTION_NAMES[index]}) during the draw")
        bits = index - DISCARD_BASE
        if bits.bit_count() > legal.max_discard:
            raise ValueError(f"{bits.bit_count()} cards thrown; at most {legal.max_discard}")
        order = sorted_cards(cards)
        return Discard(tuple(card for i, card in enumerate(order) if bits >> i & 1))
    if index == FOLD_ACTION:
        if not legal.can_fold:
            raise ValueError("fold when checking is free (cannot_fold)")
        return FOLD
    if index == CALL_ACTION:
        return CALL if legal.can_call else CHECK
    if DISCARD_BASE <= index:
        raise ValueError(f"action {index} ({ACTION_NAMES[index]}) in a betting round")
    if amounts is None:
        amounts = raise_amounts(legal, pot, current_bet)
    amount = amounts[index - RAISE_ACTIONS[0]]
    if amount is None:
        raise ValueError(f"action {index} ({ACTION_NAMES[index]}) is not open now")
    return BetRaise(amount)


class History:
    """The compact public history: per street and seat, bets and raises, calls, checks.

    Fed the engine's events as they happen (only public fields are read: who bet, called
    or checked), so the observation never rescans the hand.
    """

    __slots__ = ("counts", "street")

    def __init__(self, players: int) -> None:
        self.street = 0
        self.counts = [[[0, 0, 0] for _ in range(players)] for _ in range(2)]

    def update(self, events: Sequence[Event]) -> None:
        counts = self.counts
        for event in events:
            kind = type(event)
            if kind is BetOrRaised:
                counts[self.street][event.seat][0] += 1  # type: ignore[union-attr]  # `kind is X` above
            elif kind is Called:
                counts[self.street][event.seat][1] += 1  # type: ignore[union-attr]  # `kind is X` above
            elif kind is Checked:
                counts[self.street][event.seat][2] = 1  # type: ignore[union-attr]  # `kind is X` above
            elif event == POSTDRAW_STARTED:
                self.street = 1


def _card_features() -> dict[Card, tuple[int, int, int]]:
    """Per card: its bit in the card block and its rank and suit entries within a slot."""
    out = {}
    for card in FULL_DECK:
        if card.is_joker:
            out[card] = (card.index, 17, 17)
        else:
            out[card] = (card.index, card.rank, 13 + card.suit)
    return out


_CARD = _card_features()
_ZERO = bytes(4 * OBS_SIZE)
_COUNT = (0.0, 0.25, 0.5, 0.75)  # bets, raises or calls in a round, as a share of 4
_ORDER = {card: card.index for card in FULL_DECK}


def _seats(o: array, hand: Hand, seat: int, history: History, scale: float) -> None:
    """Each seat's block and history rows, from ``seat`` clockwise (``seat`` first)."""
    n = hand.n
    stacks, bets, committed, folded, draws = (
        hand.stacks, hand.bets, hand.committed, hand.folded, hand.draw_counts
    )  # fmt: skip
    street0, street1 = history.counts
    actor = hand.actor
    base = _SEATS
    past = _HISTORY
    for rel in range(n):
        s = (seat + rel) % n
        stack = stacks[s]
        if not folded[s]:
            o[base] = 1.0
            if not stack:
                o[base + 4] = 1.0
        o[base + 1] = stack * scale
        o[base + 2] = bets[s] * scale
        o[base + 3] = committed[s] * scale
        drew = draws[s]
        if drew is not None:
            o[base + 5] = 1.0
            o[base + 6] = drew / 5.0
        if actor == s:
            o[base + 7] = 1.0
        base += _SEAT_FEATURES
        raised, called, checked = street0[s]
        if raised or called or checked:
            o[past] = _COUNT[raised] if raised < 4 else 1.0
            o[past + 1] = _COUNT[called] if called < 4 else 1.0
            o[past + 2] = checked
        raised, called, checked = street1[s]
        if raised or called or checked:
            at = past + 3 * MAX_SEATS
            o[at] = _COUNT[raised] if raised < 4 else 1.0
            o[at + 1] = _COUNT[called] if called < 4 else 1.0
            o[at + 2] = checked
        past += 3


def encode(
    hand: Hand, seat: int, history: History, total: int, legal: LegalActions | None
) -> np.ndarray:
    """The observation of ``seat``; chips are shares of ``total`` (every chip in play);
    ``legal``: the seat's legal actions when it is to act.

    Reads only the public lists a :class:`~arena.engine.SeatView` copies (stacks, bets,
    folds, draw counts, pot) and ``seat``'s own cards: one pass of plain Python into one
    NumPy array, since a NumPy call per feature cost more than the engine's step.
    """
    o = array("f", _ZERO)  # stores into a typed buffer: far cheaper than NumPy item by item
    o[_PHASE + hand.phase - 1] = 1.0
    card_info = _CARD
    base = _SLOTS
    for card in sorted(hand.holes[seat], key=_ORDER.__getitem__):
        bit, rank, suit = card_info[card]
        o[bit] = o[base + rank] = o[base + suit] = 1.0
        base += 18
    n = hand.n
    o[_POSITION + (seat - hand.button - 1) % n] = 1.0
    o[_PLAYERS + n - 2] = 1.0
    scale = 1.0 / total
    _seats(o, hand, seat, history, scale)
    # no chip amount exceeds ``total``, so no share exceeds 1
    o[_POT] = hand.pot_total * scale
    o[_POT + 1] = hand.current_bet * scale
    if legal is not None:
        o[_POT + 2] = legal.call_amount * scale
        o[_POT + 3] = legal.min_raise_to * scale
        o[_POT + 4] = legal.max_raise_to * scale
    o[_POT + 5] = hand.carried_pot * scale
    return np.frombuffer(o, dtype=np.float32)
