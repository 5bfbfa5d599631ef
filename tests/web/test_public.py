"""The public view of a hand (issue 10 item 4): only shown cards, built from the engine's views.

Hypothesis plays random hands (every structure, blinds or antes, Jackpots, the joker,
2-7 players, short stacks for all-ins and side pots, greedy draws that run the stub dry)
and compares :func:`arena.web.public_hand` with the referee's record, ``hand.events``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine import (
    CALL,
    CHECK,
    FOLD,
    PRIVATE_EVENTS,
    BetRaise,
    CardParseError,
    CardsDrawn,
    Deck,
    Discard,
    ForcedBets,
    GameConfig,
    Hand,
    HandShown,
    HoleCardsDealt,
    JokerMode,
    Opening,
    Phase,
    ShowdownReveal,
    Structure,
    parse_card,
)
from arena.history import dumps_phhs, hand_to_phh
from arena.web import public_hand, public_match, spectator_events

SETTINGS = settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@st.composite
def hands(draw: st.DrawFn) -> Hand:
    """A random finished hand, played with random legal actions."""
    structure = draw(st.sampled_from(Structure))
    forced = draw(st.sampled_from(ForcedBets))
    antes = forced is ForcedBets.ANTES
    sizes: dict[str, int] = {"small_bet": 4} if structure is Structure.FIXED_LIMIT else {}
    if structure is not Structure.FIXED_LIMIT:
        sizes.update(big_blind=4, small_blind=draw(st.sampled_from((1, 2, 4))))
    config = GameConfig(
        structure=structure,
        forced_bets=forced,
        opening=draw(st.sampled_from(Opening)) if antes else Opening.ANY,
        ante=draw(st.integers(1 if antes else 0, 3)),
        joker=draw(st.sampled_from(JokerMode)),
        max_draw=draw(st.sampled_from((3, 5))),
        showdown_reveal=draw(st.sampled_from(ShowdownReveal)),
        **sizes,
    )
    greedy = draw(st.integers(0, 3)) == 0
    n = draw(st.integers(6, 7)) if greedy else draw(st.integers(2, 7))
    stacks = draw(st.lists(st.integers(1, 12) | st.integers(13, 300), min_size=n, max_size=n))
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    carried = draw(st.sampled_from((0, 7))) if config.opening is Opening.JACKS_OR_BETTER else 0
    hand = Hand(
        config,
        stacks,
        draw(st.integers(0, n - 1)),
        Deck.shuffled(rng, joker=config.uses_joker),
        carried_pot=carried,
    )
    for _ in range(300):
        if hand.is_over:
            break
        hand.apply(_action(hand, draw, greedy))
    assert hand.is_over
    return hand


def _action(hand: Hand, draw: st.DrawFn, greedy: bool) -> Any:
    legal = hand.legal_actions()
    if legal.phase is Phase.DRAW:
        count = legal.max_discard if greedy else draw(st.integers(0, legal.max_discard))
        return Discard(tuple(draw(st.permutations(hand.holes[legal.seat]))[:count]))
    if greedy and hand.street == 1:
        return CALL
    choices: list[Any] = [CALL]
    if legal.can_check:
        choices.append(CHECK)
    if legal.can_fold:
        choices.append(FOLD)
    if legal.can_raise:
        choices.append(BetRaise(draw(st.integers(legal.min_raise_to, legal.max_raise_to))))
    return draw(st.sampled_from(choices))


def _strings(value: Any) -> list[str]:
    """Every string anywhere in a JSON tree (keys included)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*_strings(k), *_strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _cards_in(record: dict[str, Any]) -> set[str]:
    """Every string of the record, as the browser would get it, that is a card."""
    found = set()
    for text in _strings(json.loads(json.dumps(record))):
        try:
            parse_card(text)
        except (CardParseError, ValueError):
            continue
        found.add(text)
    return found


def _record(hand: Hand, *, reveal: bool = False) -> dict[str, Any]:
    names = [f"p{k + 1}" for k in range(hand.n)]  # no name can read as a card
    seats = [10 + k for k in range(hand.n)]
    return public_hand(hand, seats, names, number=1, reveal=reveal)


@SETTINGS
@given(hand=hands())
def test_r18_r19_public_hand_holds_only_shown_cards(hand: Hand) -> None:
    """R18, R19 (R29): every card in the spectator's record was shown in the referee's record,
    by the seat the record says showed it; no deal or draw step carries a card."""
    shown = {str(c) for e in hand.events if type(e) is HandShown for c in e.cards}
    record = _record(hand)
    assert _cards_in(record) <= shown
    by_seat: dict[int, set[str]] = {}  # a seat may show twice: its hand, then its openers
    for e in hand.events:
        if type(e) is HandShown:
            by_seat.setdefault(10 + e.seat, set()).update(str(c) for c in e.cards)
    for step in record["steps"]:
        if step["cards"]:
            assert step["kind"] == "show"
            assert set(step["cards"]) <= by_seat[step["seat"]]
        assert step["discarded"] == []


@SETTINGS
@given(hand=hands())
def test_r18_r19_reveal_holds_every_dealt_card(hand: Hand) -> None:
    """A director's record (reveal=True) holds every hole card and every card drawn."""
    dealt = {str(c) for e in hand.events if type(e) is HoleCardsDealt for c in e.cards}
    dealt |= {str(c) for e in hand.events if type(e) is CardsDrawn for c in e.drawn}
    record = _record(hand, reveal=True)
    assert dealt <= _cards_in(record)
    assert record["reveal"] is True


@SETTINGS
@given(hand=hands())
def test_r26_public_steps_move_the_referees_chips(hand: Hand) -> None:
    """R26: the steps' stacks and pot end where the hand ended; chips are conserved at
    every step; a spectator sees the same steps as a director, cards aside."""
    public, director = _record(hand), _record(hand, reveal=True)
    total = sum(hand.stacks) + hand.carried_out
    for step in public["steps"]:
        assert sum(step["stacks"]) + step["pot"] == total
    last = public["steps"][-1]
    assert last["stacks"] == list(hand.stacks)
    assert last["pot"] == hand.carried_out
    assert [s["net"] for s in public["result"]] == list(hand.payoffs or ())

    def strip(steps: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{k: v for k, v in s.items() if k not in ("cards", "discarded")} for s in steps]

    assert strip(public["steps"]) == strip(director["steps"])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hand=hands())
def test_spectator_events_are_the_engines_public_twins(hand: Hand) -> None:
    """Item 4: the spectator's events are the referee's, private ones as their public twins."""
    events = spectator_events(hand)
    assert len(events) == len(hand.events)
    for seen, real in zip(events, hand.events, strict=True):
        assert not isinstance(seen, PRIVATE_EVENTS)
        assert seen == (real.public() if isinstance(real, PRIVATE_EVENTS) else real)


def test_public_hand_refuses_an_unfinished_hand() -> None:
    """A hand still being played has no public record yet (its cards are still live)."""
    hand = Hand(GameConfig(), [100, 100], 0, Deck.shuffled(random.Random(1)))
    with pytest.raises(ValueError, match="finished"):
        public_hand(hand, [0, 1], ["a", "b"], number=1)


def _finished(seed: int) -> Hand:
    hand = Hand(GameConfig(), [100, 100], 1, Deck.shuffled(random.Random(seed)))
    while not hand.is_over:
        hand.apply(STAND_PAT if hand.phase is Phase.DRAW else CALL)
    return hand


STAND_PAT = Discard(())


def test_public_match_reads_names_seats_and_numbers(tmp_path: Path) -> None:
    """public_match replays a match's hands.phhs: names (escaped), table seats, hand numbers."""
    hostile = "<script>alert(1)</script>\x1b[2J"
    phhs = [
        hand_to_phh(_finished(s), players=[hostile, "b"], seats=[3, 5], hand_number=s + 1)
        for s in range(3)
    ]
    path = tmp_path / "hands.phhs"
    path.write_text(dumps_phhs(phhs), encoding="utf-8")
    hands_ = public_match(path)
    assert [h["number"] for h in hands_] == [1, 2, 3]
    assert {s["seat"] for s in hands_[0]["seats"]} == {3, 5}
    names = {s["name"] for s in hands_[0]["seats"]}
    assert "\x1b" not in "".join(names)  # escape_untrusted: no control character
    assert any(name.startswith("<script>") for name in names)  # HTML escaping is the page's
    shown = _cards_in(hands_[0])
    assert shown  # a checked-down hand is shown at showdown
    assert public_match(path, reveal=True)[0]["reveal"] is True
