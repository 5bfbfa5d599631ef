"""A tabular betting policy: what the trainer learns and the bot serves (numpy and arena only).

A state is a handful of facts any seat view holds, the engine's in training
(``env.view()``) and the SDK's in play (``decision.view``, the same ``SeatView``):

- the street (before or after the draw),
- the hand's strength bucket (nothing, a draw to a flush or straight, a low pair,
  Jacks or better, two pair, trips, a straight or better),
- whether there is a bet to call, how many bets and raises this round (0, 1, 2+),
- whether the seat acts last after the draw (it holds the button).

The table holds, per state, the mean return of each betting action (fold, check or
call, raise): a Monte Carlo estimate. The draw is not learned: it keeps what makes the
hand (:func:`arena.policies.sensible_discards`), mapped to arena.rl's discard action.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np

from arena.engine import (
    BetOrRaised,
    HandCategory,
    Phase,
    RoundStarted,
    SeatView,
    category,
    evaluate,
)
from arena.policies import sensible_discards
from arena.rl import DISCARD_BASE, discard_action

ACTIONS = (0, 1, 2)
"""The betting actions learned, as arena.rl action indices: fold, check/call, raise (min)."""
BUCKETS = 7
STATES = 2 * BUCKETS * 2 * 3 * 2
FORMAT = 1
"""The version of the state layout, saved with the table."""


def strength(view: SeatView) -> int:
    """0 nothing, 1 four to a flush or a straight (before the draw), 2 a pair below Jacks,
    3 Jacks or better, 4 two pair, 5 trips, 6 a straight or better."""
    cards = view.hole_cards
    made = category(evaluate(cards))
    if made >= HandCategory.STRAIGHT:
        return 6
    if made >= HandCategory.THREE_OF_A_KIND:
        return 5
    if made == HandCategory.TWO_PAIR:
        return 4
    if made == HandCategory.ONE_PAIR:
        ranks = Counter(card.rank for card in cards if not card.is_joker)
        pair = max((rank for rank, count in ranks.items() if count >= 2), default=12)
        return 3 if pair >= 9 or any(card.is_joker for card in cards) else 2
    real = [card for card in cards if not card.is_joker]
    suits = Counter(card.suit for card in real).most_common(1)
    ranks = sorted({card.rank for card in real})
    straight_draw = any(ranks[i + 3] - ranks[i] <= 4 for i in range(len(ranks) - 3))
    drawing = view.phase is Phase.PREDRAW_BETTING
    if drawing and ((suits and suits[0][1] >= 4) or straight_draw):
        return 1
    return 0


def state_of(view: SeatView) -> int:
    """The state index of the seat to act in ``view`` (a betting decision)."""
    legal = view.legal
    assert legal is not None and legal.phase is not Phase.DRAW
    street = int(legal.phase is Phase.POSTDRAW_BETTING)
    raises = 0
    for event in reversed(view.events):
        if isinstance(event, RoundStarted):
            break
        raises += isinstance(event, BetOrRaised)
    facing = int(legal.call_amount > 0)
    last = int(view.button == view.seat)
    index = ((street * BUCKETS + strength(view)) * 2 + facing) * 3 + min(raises, 2)
    return index * 2 + last


def legal_actions(view: SeatView) -> list[int]:
    """The learned actions open to the seat to act (fold only facing a bet)."""
    legal = view.legal
    assert legal is not None
    out = [1]
    if legal.can_fold:
        out.insert(0, 0)
    if legal.can_raise:
        out.append(2)
    return out


def draw_action(view: SeatView) -> int:
    """The arena.rl discard action of :func:`sensible_discards`."""
    legal = view.legal
    assert legal is not None
    thrown = sensible_discards(view.hole_cards, legal.max_discard)
    return discard_action(view.hole_cards, thrown) if thrown else DISCARD_BASE


class TablePolicy:
    """Mean returns per (state, action), in big blinds, and how often each was tried."""

    def __init__(self, values: np.ndarray | None = None, counts: np.ndarray | None = None):
        self.values = np.zeros((STATES, len(ACTIONS))) if values is None else values
        self.counts = np.zeros((STATES, len(ACTIONS))) if counts is None else counts

    def act(self, view: SeatView) -> int:
        """The arena.rl action for ``view``: the best known betting action, or the draw."""
        legal = view.legal
        assert legal is not None
        if legal.phase is Phase.DRAW:
            return draw_action(view)
        options = legal_actions(view)
        row = self.values[state_of(view)]
        return max(options, key=lambda action: row[action])

    def update(self, state: int, action: int, result: float) -> None:
        """Fold one more return into the running mean of (state, action)."""
        self.counts[state, action] += 1
        self.values[state, action] += (result - self.values[state, action]) / self.counts[
            state, action
        ]

    def save(self, path: str | Path) -> None:
        np.savez(path, values=self.values, counts=self.counts, format=FORMAT)

    @classmethod
    def load(cls, path: str | Path) -> TablePolicy:
        """Read a table saved by :meth:`save`; a file of another layout is refused."""
        with np.load(path) as data:
            if int(data["format"]) != FORMAT or data["values"].shape != (STATES, len(ACTIONS)):
                raise ValueError(f"{path}: not a table of this policy (format {FORMAT})")
            return cls(data["values"].copy(), data["counts"].copy())
