"""A Monte Carlo player: equity from sampled deals, decisions by equity against pot odds.

For each decision it deals the unseen cards out many times: every live opponent gets
five cards and draws, we draw, and the evaluator says who wins. Opponents are not
treated as random hands: a sample must fit what they did in public (how many cards
they drew, R16, and whether they bet or raised), tried a few times by rejection. The
share of pots won is the equity; the policy calls when the equity beats the pot odds,
bets or raises when it is well ahead, and at the draw keeps the cards whose sampled
outcome is best.

It reads an engine :class:`~arena.engine.SeatView`: ``hole_cards``, ``legal``, ``pot``
and the table facts ``seat``, ``folded``, ``draw_counts`` and ``events``. Over gRPC that
view is :func:`arena.protocol.read_decision` of the request (an SDK ``Decision`` holds it
as ``view``, and is accepted too), so it plays in-process and over the wire alike and
depends on the engine only.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from arena.engine import (
    CALL,
    CHECK,
    FOLD,
    JOKER,
    STANDARD_DECK,
    Action,
    BetOrRaised,
    BetRaise,
    Card,
    Discard,
    JokerMode,
    Phase,
    RoundStarted,
    SeatView,
    evaluate,
    parse_cards,
)
from arena.policies._basic import sensible_discards


@dataclass(frozen=True, slots=True)
class _Opponent:
    """What the table shows about one live opponent."""

    drew: int | None  # cards drawn (R16), None before it drew
    raised_before_draw: int  # bets and raises in the first round
    raised_after_draw: int  # bets and raises in the second round


@dataclass(frozen=True, slots=True)
class _Table:
    opponents: tuple[_Opponent, ...]
    raises_this_round: int


def _read_table(view: SeatView) -> _Table:
    """The live opponents and their public actions (R16 draw counts, bets and raises)."""
    me = view.seat
    street = "predraw"
    before: dict[int, int] = {}
    after: dict[int, int] = {}
    this_round = 0
    for event in view.events:
        if isinstance(event, RoundStarted):
            street = event.street
            this_round = 0
        elif isinstance(event, BetOrRaised):
            counts = after if street == "postdraw" else before
            counts[event.seat] = counts.get(event.seat, 0) + 1
            this_round += 1
    opponents = tuple(
        _Opponent(view.draw_counts[seat], before.get(seat, 0), after.get(seat, 0))
        for seat, folded in enumerate(view.folded)
        if seat != me and not folded
    )
    return _Table(opponents, this_round)


def _rank_of(card: int) -> int:
    return -1 if card == JOKER else (card >> 8) & 0xF


def _discard_count(cards: Sequence[Card], max_draw: int, joker: str | None) -> int:
    """How many cards a sensible player draws to ``cards`` (a fast ``sensible_discards``)."""
    ranks = [_rank_of(c) for c in cards]
    if JOKER in cards:
        return min(max_draw, sum(1 for r in ranks if r >= 0 and ranks.count(r) == 1))
    if evaluate(cards, joker) >= _STRAIGHT:
        return 0
    paired = sum(1 for r in ranks if ranks.count(r) >= 2)
    if paired:
        return min(max_draw, 5 - paired)
    suits = [(c >> 12) & 0xF for c in cards]
    if max(suits.count(s) for s in set(suits)) >= 4:
        return 1
    return min(max_draw, 4)


def _keep(cards: Sequence[Card], draw: int) -> list[Card]:
    """The ``5 - draw`` cards a player drawing ``draw`` most likely keeps: the jokers,
    then the biggest rank groups, then the highest cards."""
    if draw <= 0:
        return list(cards)
    ranks = [_rank_of(c) for c in cards]
    order = sorted(
        range(5),
        key=lambda i: (ranks[i] < 0, ranks.count(ranks[i]), ranks[i]),
        reverse=True,
    )
    return [cards[i] for i in order[: 5 - draw]]


def _draw_options(cards: Sequence[Card], max_draw: int) -> list[tuple[Card, ...]]:
    """Discard sets worth weighing: the sensible one (pairs and made hands), standing
    pat, keeping a four-flush or four to a straight, keeping one or two high cards."""
    options = {sensible_discards(cards, max_draw), ()}
    real = [c for c in cards if c != JOKER]
    by_rank = sorted(real, key=lambda c: c.rank, reverse=True)
    for keep_top in (1, 2):
        options.add(tuple(by_rank[keep_top:]))
    for suit in range(4):
        suited = [c for c in real if c.suit == suit]
        if len(suited) == 4:
            options.add(tuple(c for c in real if c.suit != suit))
    ranks = {c.rank for c in real}
    for low in range(-1, 9):  # four ranks of a five-rank window (the wheel: ace as -1)
        window = {(r if r >= 0 else 12) for r in range(low, low + 5)}
        inside = [c for c in real if c.rank in window]
        if len({c.rank for c in inside}) == 4 and len(ranks) == 5:
            options.add(tuple(c for c in real if c.rank not in window))
    return [option for option in options if len(option) <= max_draw]


class MonteCarloPolicy:
    """Equity by sampling the unseen cards; calls on pot odds, raises when well ahead.

    ``samples`` deals per decision against one opponent (fewer per opponent at a
    fuller table; the default keeps a decision to a few ms); ``rng`` any
    :class:`random.Random` (seed it for reproducible play); ``joker`` and ``max_draw``
    the table's options (R2, R15), which a bot learns from its MatchStart.
    """

    name = "monte-carlo"

    def __init__(
        self,
        samples: int = 200,
        rng: random.Random | None = None,
        joker: JokerMode | str | None = None,
        max_draw: int = 5,
        *,
        tries: int = 6,
    ) -> None:
        self.samples = samples
        self.rng = rng or random.Random()
        self.joker = joker
        self.max_draw = max_draw
        self.tries = tries

    def prepare(self) -> None:
        """Build the sampling tables for this table's options now (~0.3 s, once per
        process), rather than in the first decision."""
        _bank(self.max_draw, self._joker())

    def _joker(self) -> str | None:
        return None if self.joker in (None, "off", JokerMode.OFF) else str(self.joker)

    # --- the decision ------------------------------------------------------------

    def decide(self, view: SeatView) -> Action:
        view = getattr(view, "view", view)  # an SDK Decision holds the SeatView
        legal = view.legal
        assert legal is not None, "decide() is only asked of the seat to act"
        table = _read_table(view)
        hole = tuple(view.hole_cards)
        if JOKER in hole and self._joker() is None:  # a joker table nobody told us about
            self.joker = JokerMode.WILD
        if legal.phase is Phase.DRAW:
            return Discard(self._best_draw(hole, table, legal.max_discard))
        if not table.opponents:
            return CALL if legal.can_call else CHECK
        max_draw = self.max_draw
        my_draw = sensible_discards(hole, max_draw) if legal.phase is Phase.PREDRAW_BETTING else ()
        equity = self.equity(hole, my_draw, table, max_draw)
        n = len(table.opponents)
        value = 0.6 if n == 1 else 1.3 / (n + 1)
        raise_ok = legal.can_raise and (table.raises_this_round < 3 or equity > 0.85)
        if raise_ok and equity >= value + 0.05 * table.raises_this_round:
            return BetRaise(self._raise_size(view, equity))
        if legal.can_call:
            odds = legal.call_amount / (view.pot + legal.call_amount)
            return CALL if equity >= odds else FOLD
        return CHECK

    def _raise_size(self, view: SeatView, equity: float) -> int:
        legal = view.legal
        assert legal is not None  # only called on a betting decision, which has legal actions
        if legal.min_raise_to == legal.max_raise_to:  # fixed limit: the only size
            return legal.min_raise_to
        target = legal.min_raise_to + int(view.pot * (equity - 0.4))
        return max(legal.min_raise_to, min(legal.max_raise_to, target))

    def _best_draw(self, hole: tuple[Card, ...], table: _Table, max_draw: int) -> tuple[Card, ...]:
        options = _draw_options(hole, max_draw)
        if len(options) == 1:
            return options[0]
        if not table.opponents:
            return sensible_discards(hole, max_draw)
        scores = self._equities(hole, options, table, max_draw)
        best = max(range(len(options)), key=lambda i: (scores[i], -len(options[i])))
        return options[best]

    # --- sampling ----------------------------------------------------------------

    def equity(
        self, hole: Sequence[Card], discards: Sequence[Card], table: _Table, max_draw: int = 5
    ) -> float:
        """Share of the pot won by ``hole`` after discarding ``discards``, over sampled deals."""
        return self._equities(hole, [tuple(discards)], table, max_draw)[0]

    def _equities(
        self,
        hole: Sequence[Card],
        options: Sequence[tuple[Card, ...]],
        table: _Table,
        max_draw: int,
    ) -> list[float]:
        joker = self._joker()
        deck = _FULL if joker else _STANDARD
        bank = _bank(max_draw, joker)
        kept = [tuple(c for c in hole if c not in option) for option in options]
        counts = [len(option) for option in options]
        need = max(counts)
        held = frozenset(hole)
        rand = self.rng.random
        plans = [(bank.starts_for(opponent), opponent) for opponent in table.opponents]
        rate = [0.0] * len(options)
        # more opponents, fewer deals: the time per decision stays about the same
        deals = max(1, min(self.samples, 2 * self.samples // (1 + len(plans))))
        for _ in range(deals):
            used = set(held)
            best_other = 0
            for starts, opponent in plans:
                final = self._opponent_hand(starts, opponent, used, deck, joker)
                best_other = max(best_other, evaluate(final, joker))
            dealt = _deal(need, deck, used, rand, held)
            for i in range(len(options)):
                mine = evaluate((*kept[i], *dealt[: counts[i]]), joker)
                if mine > best_other:
                    rate[i] += 1.0
                elif mine == best_other:
                    rate[i] += 0.5
        return [r / deals for r in rate]

    def _opponent_hand(
        self,
        starts: Sequence[_Start],
        opponent: _Opponent,
        used: set[Card],
        deck: Sequence[Card],
        joker: str | None,
    ) -> tuple[Card, ...]:
        """One opponent's hand after the draw, drawn from starting hands that fit its
        draw count and first-round raises; after the draw it must also fit a bet (a few
        tries, else the strongest tried). Its cards are added to ``used``."""
        rand = self.rng.random
        size = len(starts)
        best: tuple[Card, ...] = ()
        best_rank = -1
        for _ in range(self.tries):
            start = starts[int(rand() * size)]
            for _ in range(20):  # a crowded table may leave no fitting hand: take it anyway
                if used.isdisjoint(start.cards):
                    break
                start = starts[int(rand() * size)]
            draw = start.draw if opponent.drew is None else opponent.drew
            keep = start.keep if draw == start.draw else _keep(start.cards, draw)
            taken = used | set(start.cards)
            final = (*keep, *_deal(draw, deck, taken, rand, keep))
            if not opponent.raised_after_draw:
                used.update(taken)
                return final
            rank = evaluate(final, joker)
            if rank >= _TENS:
                used.update(taken)
                return final
            if rank > best_rank:
                best, best_rank = final, rank
        used.update(best)
        return best


class _Start(NamedTuple):
    """A starting hand of the bank, with its sensible draw."""

    cards: tuple[Card, ...]
    rank: int
    draw: int
    keep: tuple[Card, ...]


class _Bank:
    """Random starting hands, sorted into lists by draw count and first-round strength,
    so that a sample fitting an opponent's public actions costs one random index."""

    def __init__(self, starts: list[_Start]) -> None:
        self.all = starts
        self.by_key: dict[tuple[int | None, int], list[_Start]] = {}
        for floor_index, floor in enumerate(_RAISE_FLOORS):
            strong = [s for s in starts if s.rank >= floor]
            self.by_key[None, floor_index] = strong
            for draw in range(6):
                self.by_key[draw, floor_index] = [s for s in strong if s.draw == draw]

    def starts_for(self, opponent: _Opponent) -> list[_Start]:
        floor_index = min(opponent.raised_before_draw, len(_RAISE_FLOORS) - 1)
        for key in ((opponent.drew, floor_index), (opponent.drew, 0), (None, floor_index)):
            starts = self.by_key.get(key, [])
            if len(starts) >= _MIN_BUCKET:
                return starts
        return self.all


_BANKS: dict[tuple[int, str | None], _Bank] = {}
_BANK_SIZE = 20_000
_MIN_BUCKET = 50


def _bank(max_draw: int, joker: str | None) -> _Bank:
    """The bank for a table (built once per process, from a fixed seed, in ~0.3 s)."""
    key = (max_draw, joker)
    bank = _BANKS.get(key)
    if bank is None:
        rng = random.Random(f"monte-carlo-bank:{max_draw}:{joker}")
        deck = _FULL if joker else _STANDARD
        starts = []
        for _ in range(_BANK_SIZE):
            cards = tuple(rng.sample(deck, 5))
            draw = _discard_count(cards, max_draw, joker)
            starts.append(_Start(cards, evaluate(cards, joker), draw, tuple(_keep(cards, draw))))
        bank = _BANKS[key] = _Bank(starts)
    return bank


def _deal(
    count: int, deck: Sequence[Card], used: set[Card], rand: Any, hand: Iterable[Card]
) -> list[Card]:
    """``count`` random cards of ``deck`` not in ``used``, to complete ``hand``; adds
    them to ``used``."""
    cards: list[Card] = []
    size = len(deck)
    if len(used) + count > size:  # more cards out than the deck holds: a reshuffle (R17)
        used.clear()
        used.update(hand)
    while len(cards) < count:
        card = deck[int(rand() * size)]
        if card not in used:
            used.add(card)
            cards.append(card)
    return cards


def _rank_of_hand(text: str) -> int:
    return evaluate(parse_cards(text))


_STRAIGHT = _rank_of_hand("Ac 2d 3h 4s 5c")  # the wheel, the lowest straight
_PAIR_OF_TWOS = _rank_of_hand("2c 2d 3h 4s 5c")
_JACKS = _rank_of_hand("Jc Jd 2h 3s 4c")
_TENS = _rank_of_hand("Tc Td 2h 3s 4c")  # what a bet after the draw is assumed to show
_RAISE_FLOORS = (0, _PAIR_OF_TWOS, _JACKS)  # by first-round raises: none, one, more
_STANDARD = STANDARD_DECK
_FULL = (*STANDARD_DECK, JOKER)
