"""Property tests: invariants that hold in every hand, whatever the settings and the play.

Hypothesis draws the table (every structure, blinds or antes, Jackpots, joker off, bug
or wild, 2-7 players, random stacks so that all-ins and side pots happen) and then, step
by step, a random legal action for the seat to act (bets and raises of any legal size,
defaults, random discards). Some examples make everyone draw the most cards allowed so
the stub runs out (R17). After every action the invariants below are checked.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from arena.engine import (
    CALL,
    CHECK,
    FOLD,
    FULL_DECK,
    STANDARD_DECK,
    BetRaise,
    Card,
    CardsDrawn,
    Deck,
    Discard,
    ForcedBets,
    GameConfig,
    Hand,
    HandShown,
    HoleCardsDealt,
    IllegalActionError,
    JokerMode,
    Opening,
    Phase,
    Reason,
    ShowdownReveal,
    Structure,
    StubReshuffled,
)

MAX_STEPS = 300
"""No hand needs more decisions: 7 players, unlimited raises only while stacks last."""

PROPERTY_SETTINGS = settings(
    max_examples=800,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@dataclass(frozen=True)
class Table:
    """One drawn table: settings, players and the deck's seed."""

    config: GameConfig
    stacks: tuple[int, ...]
    button: int
    seed: int
    carried_pot: int = 0
    greedy_draw: bool = False
    """Everyone draws the most cards allowed (and nobody folds before the draw): R17."""

    def new_hand(self) -> Hand:
        rng = random.Random(self.seed)
        deck = Deck.shuffled(rng, joker=self.config.uses_joker)
        return Hand(self.config, self.stacks, self.button, deck, carried_pot=self.carried_pot)


@st.composite
def configs(draw: st.DrawFn) -> GameConfig:
    structure = draw(st.sampled_from(Structure))
    forced_bets = draw(st.sampled_from(ForcedBets))
    antes = forced_bets is ForcedBets.ANTES
    opening = draw(st.sampled_from(Opening)) if antes else Opening.ANY
    ante = draw(st.integers(1 if antes else 0, 3))
    size = draw(st.sampled_from((2, 4, 10)))
    sizes: dict[str, int] = {}
    if structure is Structure.FIXED_LIMIT:
        sizes["small_bet"] = size
    else:
        sizes["big_blind"] = size
        sizes["small_blind"] = draw(st.sampled_from((1, size // 2, size)))
    return GameConfig(
        structure=structure,
        forced_bets=forced_bets,
        opening=opening,
        ante=ante,
        joker=draw(st.sampled_from(JokerMode)),
        max_draw=draw(st.sampled_from((3, 4, 5))),
        showdown_reveal=draw(st.sampled_from(ShowdownReveal)),
        uncapped_heads_up=draw(st.booleans()),
        **sizes,
    )


@st.composite
def tables(draw: st.DrawFn, *, greedy: bool | None = None) -> Table:
    """A random table; ``greedy`` forces (or forbids) a deck-exhausting draw."""
    config = draw(configs())
    if greedy is None:
        greedy = draw(st.integers(0, 4)) == 0
    n = draw(st.integers(6, 7)) if greedy else draw(st.integers(2, 7))
    stack = st.one_of(st.integers(1, 12), st.integers(13, 80), st.integers(81, 400))
    stacks = tuple(draw(st.lists(stack, min_size=n, max_size=n)))
    carried = 0
    if config.opening is Opening.JACKS_OR_BETTER:
        carried = draw(st.sampled_from((0, 0, 7, 30)))
    return Table(
        config=config,
        stacks=stacks,
        button=draw(st.integers(0, n - 1)),
        seed=draw(st.integers(0, 2**32 - 1)),
        carried_pot=carried,
        greedy_draw=greedy,
    )


def choose_action(hand: Hand, data: st.DataObject, greedy: bool):
    """A random legal action for the seat to act, drawn from hypothesis data."""
    legal = hand.legal_actions()
    if legal.phase is Phase.DRAW:
        hole = hand.holes[legal.seat]
        count = legal.max_discard if greedy else data.draw(st.integers(0, legal.max_discard))
        order = data.draw(st.permutations(hole))
        return Discard(tuple(order[:count]))
    kinds = ["call"]
    if legal.can_check:
        kinds.append("check")
    if legal.can_fold and not (greedy and hand.street == 1):
        kinds.append("fold")
    if legal.can_raise:
        kinds.append("raise")
    kinds.append("default")
    kind = data.draw(st.sampled_from(kinds))
    if kind == "raise":
        low, high = legal.min_raise_to, legal.max_raise_to
        return BetRaise(data.draw(st.sampled_from((low, high)) | st.integers(low, high)))
    if kind == "default":
        return hand.default_action() if not (greedy and hand.street == 1) else CALL
    return {"call": CALL, "check": CHECK, "fold": FOLD}[kind]


def play(table: Table, data: st.DataObject, check) -> Hand:
    """Play one hand with random legal actions, calling ``check(hand)`` before every decision
    and after the hand ends; returns the finished hand."""
    hand = table.new_hand()
    steps = 0
    check(hand)
    while not hand.is_over:
        steps += 1
        assert steps <= MAX_STEPS, f"the hand did not end in {MAX_STEPS} steps: {hand!r}"
        hand.apply(choose_action(hand, data, table.greedy_draw))
        check(hand)
    event(
        "reshuffled" if any(isinstance(e, StubReshuffled) for e in hand.events) else "no reshuffle"
    )
    event("dead hand" if hand.dead else "hand played out")
    return hand


# --- R26 ----------------------------------------------------------------------------


@PROPERTY_SETTINGS
@given(table=tables(), data=st.data())
def test_r26_chips_conserved_after_every_action(table: Table, data: st.DataObject) -> None:
    """Stacks plus the pot always equal the chips brought plus any carried pot; none go missing."""
    total = sum(table.stacks) + table.carried_pot

    def check(hand: Hand) -> None:
        assert sum(hand.stacks) + hand.pot_total == total, hand
        assert all(chips >= 0 for chips in hand.stacks), hand
        assert all(chips >= 0 for chips in hand.committed), hand

    hand = play(table, data, check)
    assert hand.payoffs is not None
    if hand.dead:  # R28: the antes stay in the middle for the next deal
        assert hand.carried_out == hand.pot_total
        assert sum(hand.payoffs) == -(hand.pot_total - table.carried_pot)
    else:
        assert hand.pot_total == 0
        assert sum(hand.payoffs) == table.carried_pot
    assert [hand.stacks[i] - table.stacks[i] for i in range(hand.n)] == hand.payoffs


# --- R17 ----------------------------------------------------------------------------


def _check_cards(hand: Hand) -> None:
    cards = hand.all_cards()
    size = 53 if hand.config.uses_joker else 52
    assert len(cards) == len(set(cards)) == size, (hand, sorted(cards))
    assert set(cards) == set(FULL_DECK if hand.config.uses_joker else STANDARD_DECK)
    for seat, hole in enumerate(hand.holes):
        if not hand.folded[seat]:
            assert len(hole) == 5, hand


@PROPERTY_SETTINGS
@given(table=tables(), data=st.data())
def test_r17_every_card_in_exactly_one_place(table: Table, data: st.DataObject) -> None:
    """Every card of the deck is in exactly one hand, the stub, the muck or set aside, always."""
    play(table, data, _check_cards)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(greedy=True), data=st.data())
def test_r17_deck_exhaustion_reshuffles_and_loses_no_card(
    table: Table, data: st.DataObject
) -> None:
    """Six or seven players drawing four or five each run the stub dry; no card is lost or
    doubled, and nobody gets back a card they discarded."""
    hand = play(table, data, _check_cards)
    draws = [e for e in hand.events if isinstance(e, CardsDrawn)]
    drawn_total = sum(len(e.drawn) for e in draws)
    if drawn_total > len(FULL_DECK if table.config.uses_joker else STANDARD_DECK) - 5 * hand.n - 1:
        assert any(isinstance(e, StubReshuffled) for e in hand.events)
    for draw_event in draws:  # R17: a discarded card never returns to the hand it left
        assert not set(draw_event.discarded) & set(draw_event.drawn)


def test_r17_greedy_tables_do_exhaust_the_deck() -> None:
    """The exhaustion test above really reaches R17: seven players drawing five each must."""
    config = GameConfig(structure=Structure.NO_LIMIT, max_draw=5)
    hand = Hand(config, [100] * 7, 0, Deck.shuffled(random.Random(5)))
    while hand.phase is Phase.PREDRAW_BETTING:
        hand.apply(CALL)
    while hand.phase is Phase.DRAW:
        hand.apply(Discard(tuple(hand.holes[hand.actor])))
        _check_cards(hand)
    assert any(isinstance(e, StubReshuffled) for e in hand.events)


# --- R24 ----------------------------------------------------------------------------


def _snapshot(hand: Hand) -> tuple:
    return (
        tuple(hand.stacks),
        tuple(hand.bets),
        tuple(hand.committed),
        tuple(hand.folded),
        len(hand.events),
        hand.actor,
        hand.phase,
        hand.current_bet,
        hand.pot_total,
        tuple(tuple(hole) for hole in hand.holes),
        len(hand.deck),
        tuple(hand.draw_counts),
    )


def _assert_rejected(hand: Hand, action: object, *reasons: Reason) -> None:
    """``action`` is refused by ``can_apply`` and by ``apply``, and nothing changes."""
    assert not hand.can_apply(action), (action, hand)  # type: ignore[arg-type]
    before = _snapshot(hand)
    with pytest.raises(IllegalActionError) as refused:
        hand.apply(action)  # type: ignore[arg-type]
    if reasons:
        assert refused.value.reason in reasons, (action, refused.value.reason, hand)
    assert _snapshot(hand) == before, action


def _check_actions(hand: Hand) -> None:
    if hand.is_over:
        with pytest.raises(IllegalActionError):
            hand.legal_actions()
        for action in (CALL, CHECK, FOLD, BetRaise(10), Discard(())):
            _assert_rejected(hand, action, Reason.HAND_OVER)
        return
    legal = hand.legal_actions()
    seat = legal.seat
    assert seat == hand.actor
    assert hand.can_apply(hand.default_action())  # R23 / R24: the fallback is always legal
    if legal.phase is Phase.DRAW:
        _check_draw_actions(hand, seat, legal.max_discard)
        return
    stack, bet, current = hand.stacks[seat], hand.bets[seat], hand.current_bet
    assert stack > 0, "a seat with no chips is never asked to act"
    assert legal.can_fold == (not legal.can_check) == (current > bet)
    assert (
        legal.call_amount == min(current - bet, stack) if current > bet else legal.call_amount == 0
    )
    assert hand.can_apply(CALL)
    assert hand.can_apply(CHECK) == legal.can_check
    assert hand.can_apply(FOLD) == legal.can_fold
    if legal.can_check:
        _assert_rejected(hand, FOLD, Reason.CANNOT_FOLD)
    else:
        _assert_rejected(hand, CHECK, Reason.CANNOT_CHECK)
    if legal.can_raise:
        low, high = legal.min_raise_to, legal.max_raise_to
        assert current < low <= high <= bet + stack, (legal, hand)
        assert hand.can_apply(BetRaise(low))
        assert hand.can_apply(BetRaise(high))
        assert hand.can_apply(BetRaise((low + high) // 2))
        _assert_rejected(hand, BetRaise(low - 1), Reason.AMOUNT_TOO_SMALL)
        _assert_rejected(hand, BetRaise(high + 1), Reason.AMOUNT_TOO_LARGE)
    else:
        assert (legal.min_raise_to, legal.max_raise_to) == (0, 0)
        for amount in {current + 1, bet + stack, current + hand.config.big_bet}:
            _assert_rejected(hand, BetRaise(amount))
    _assert_rejected(hand, BetRaise(True), Reason.UNKNOWN_ACTION)  # type: ignore[arg-type]
    _assert_rejected(hand, BetRaise(current + 1.5), Reason.UNKNOWN_ACTION)  # type: ignore[arg-type]
    _assert_rejected(hand, Discard(()), Reason.WRONG_PHASE)
    _assert_rejected(hand, "raise", Reason.UNKNOWN_ACTION)


def _check_draw_actions(hand: Hand, seat: int, max_discard: int) -> None:
    hole = list(hand.holes[seat])
    assert max_discard == hand.config.max_draw
    assert hand.can_apply(Discard(()))
    for count in range(1, max_discard + 1):
        assert hand.can_apply(Discard(tuple(hole[:count])))
        assert hand.can_apply(Discard(tuple(hole[-count:])))
    for action in (CALL, CHECK, FOLD, BetRaise(hand.config.big_bet)):  # type: ignore[arg-type]
        _assert_rejected(hand, action, Reason.WRONG_PHASE)
    elsewhere = next(card for card in hand.all_cards() if card not in hole)
    _assert_rejected(hand, Discard((elsewhere,)), Reason.CARD_NOT_HELD)
    _assert_rejected(hand, Discard((hole[0], elsewhere)), Reason.CARD_NOT_HELD)
    _assert_rejected(hand, Discard((hole[0], hole[0])), Reason.DUPLICATE_CARD)
    too_many = tuple(hole[: max_discard + 1]) if max_discard < 5 else (*hole, elsewhere)
    _assert_rejected(hand, Discard(too_many), Reason.TOO_MANY_DISCARDS)


@PROPERTY_SETTINGS
@given(table=tables(), data=st.data())
def test_r24_every_listed_action_applies_and_illegal_ones_are_rejected(
    table: Table, data: st.DataObject
) -> None:
    """Every action ``legal_actions`` lists is accepted at its bounds; anything outside them is
    refused with IllegalActionError and leaves the hand exactly as it was."""
    play(table, data, _check_actions)


# --- R18, R19 -----------------------------------------------------------------------


def _cards_in(value: object) -> set[Card]:
    """Every Card reachable in a view's field (tuples, dicts, records)."""
    if isinstance(value, Card):
        return {value}
    if isinstance(value, dict):
        return set().union(*(_cards_in(item) for item in value.values())) if value else set()
    if isinstance(value, tuple | list):
        return set().union(*(_cards_in(item) for item in value)) if value else set()
    return set()


def _check_views(hand: Hand) -> None:
    shown: set[Card] = set()
    own: list[set[Card]] = [set() for _ in range(hand.n)]
    for item in hand.events:
        if isinstance(item, HandShown):
            shown.update(item.cards)
        elif isinstance(item, HoleCardsDealt):
            own[item.seat].update(item.cards)
        elif isinstance(item, CardsDrawn):
            own[item.seat].update(item.discarded)
            own[item.seat].update(item.drawn)
    for seat in range(hand.n):
        view = hand.view(seat)
        assert set(view.hole_cards) == set(hand.holes[seat])
        seen = _cards_in(view.hole_cards) | _cards_in(view.shown)
        for item in view.events:
            seen |= _cards_in(tuple(item))
            if isinstance(item, HoleCardsDealt | CardsDrawn):
                assert item.seat == seat, f"seat {seat} sees {item}"
        leaked = seen - own[seat] - shown
        assert not leaked, f"seat {seat} sees unshown cards {sorted(map(str, leaked))}"
        assert _cards_in(view.shown) <= shown
        if hand.actor == seat:
            assert view.legal == hand.legal_actions()
        else:
            assert view.legal is None


@PROPERTY_SETTINGS
@given(table=tables(), data=st.data())
def test_r18_r19_no_view_holds_an_unshown_card(table: Table, data: st.DataObject) -> None:
    """A seat's view holds only its own cards and cards shown to everyone, at every step."""
    hand = play(table, data, _check_views)
    live = [seat for seat in range(hand.n) if not hand.folded[seat]]
    if len(live) == 1 and not hand.dead:  # R18: the uncontested winner shows nothing
        assert all(e.openers for e in hand.events if isinstance(e, HandShown))
