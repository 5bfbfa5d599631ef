"""PHH export, import and replay: engine hand -> PHH text -> replay -> the same hand."""

from __future__ import annotations

import inspect
import random
import tomllib
from pathlib import Path

import pytest

import arena.history
from arena.engine import (
    STANDARD_DECK,
    BlindPlan,
    Deck,
    ForcedBets,
    ForcedPost,
    GameConfig,
    Hand,
    JokerMode,
    Opening,
    Phase,
    ShowdownReveal,
    Structure,
    StubReshuffled,
    parse_cards,
)
from arena.history import (
    PhhFormatError,
    ReplayError,
    dumps_phh,
    dumps_phhs,
    hand_to_phh,
    load_phh,
    player_order,
    replay,
)

DATA = Path(__file__).parent / "data"
STRUCTURES = (Structure.FIXED_LIMIT, Structure.POT_LIMIT, Structure.NO_LIMIT)
HANDS_PER_STRUCTURE = 250


# --- a seeded random game, policy and hand -------------------------------------------


def random_config(structure: Structure, rng: random.Random) -> GameConfig:
    options: dict = {
        "structure": structure,
        "max_draw": rng.choice((3, 4, 5, 5, 5)),
        "showdown_reveal": rng.choice((ShowdownReveal.ALL, ShowdownReveal.MUCK)),
        "joker": rng.choice((JokerMode.OFF, JokerMode.OFF, JokerMode.BUG, JokerMode.WILD)),
    }
    game = rng.random()
    if game < 0.15:
        options.update(forced_bets=ForcedBets.ANTES, ante=rng.choice((1, 2)))
        if rng.random() < 0.5:
            options["opening"] = Opening.JACKS_OR_BETTER
    else:
        options["ante"] = rng.choice((0, 0, 0, 1))
    if structure is Structure.FIXED_LIMIT:
        options["small_bet"] = rng.choice((2, 4))
        options["uncapped_heads_up"] = rng.random() < 0.2
    else:
        options["big_blind"] = rng.choice((2, 4))
    return GameConfig(**options)


def random_plan(n: int, button: int, config: GameConfig, rng: random.Random) -> BlindPlan | None:
    """Sometimes a dead small blind (R20) or a returning player's posts (R22)."""
    if config.forced_bets is ForcedBets.ANTES or n < 4 or rng.random() < 0.8:
        return None
    left = (button + 1) % n
    if rng.random() < 0.5:
        return BlindPlan(big_blind_seat=(left + 1) % n, small_blind_seat=None)
    post = ForcedPost((left + 3) % n, live=config.big_blind, dead=config.small_blind)  # type: ignore[arg-type]
    return BlindPlan((left + 1) % n, left, (post,))


def play_random_hand(
    config: GameConfig, n: int, rng: random.Random, *, draw_heavy: bool = False
) -> Hand:
    """A hand of random legal actions: folds, calls, raises to random sizes, all-ins."""
    stacks = [rng.choice((rng.randint(1, 30), rng.randint(30, 400))) for _ in range(n)]
    button = rng.randrange(n)
    carried = rng.choice((0, 0, 6)) if config.opening is Opening.JACKS_OR_BETTER else 0
    deck = Deck.shuffled(rng, joker=config.uses_joker)
    hand = Hand(
        config,
        stacks,
        button,
        deck,
        blinds=random_plan(n, button, config, rng),
        carried_pot=carried,
    )
    while not hand.is_over:
        legal = hand.legal_actions()
        if legal.phase is Phase.DRAW:
            hole = hand.holes[legal.seat]
            most = min(legal.max_discard, len(hole))
            count = most if draw_heavy else rng.randint(0, most)
            hand.discard(rng.sample(hole, count))
            continue
        roll = rng.random()
        if legal.can_fold and roll < 0.15:
            hand.fold()
        elif legal.can_raise and roll < 0.45:
            top = legal.max_raise_to if rng.random() < 0.2 else legal.min_raise_to
            hand.bet_or_raise(rng.randint(legal.min_raise_to, max(legal.min_raise_to, top)))
        else:
            hand.check_or_call()
    return hand


def renumbered(events: list, order: list[int]) -> list:
    """The replay's events with its seats (PHH order) mapped back to the original seats."""
    out = []
    for event in events:
        if hasattr(event, "seat"):
            event = event._replace(seat=order[event.seat])
        if type(event) is StubReshuffled:
            event = event._replace(excluded_seat=order[event.excluded_seat])
        out.append(event)
    return out


def assert_round_trip(hand: Hand, **kwargs) -> Hand:
    text = dumps_phh(hand_to_phh(hand, **kwargs))
    [record] = load_phh(text, source="round-trip.phh")
    again = replay(record)
    order = player_order(hand.n, hand.button)
    assert renumbered(again.events, order) == hand.events
    assert again.stacks == [hand.stacks[seat] for seat in order]
    assert record.config == hand.config
    return again


# --- round trips ----------------------------------------------------------------------


class TestRoundTrip:
    @pytest.mark.parametrize("structure", STRUCTURES, ids=lambda s: s.value)
    def test_random_hands_replay_to_the_same_events_and_stacks(self, structure: Structure) -> None:
        """Random hands of 2-7 players (all-ins, side pots, options) survive PHH unchanged."""
        rng = random.Random(f"phh-{structure.value}")
        for _ in range(HANDS_PER_STRUCTURE):
            config = random_config(structure, rng)
            hand = play_random_hand(config, rng.randint(2, 7), rng)
            assert_round_trip(hand, players=[f"bot{i}" for i in range(hand.n)], hand_number=1)

    @pytest.mark.parametrize("structure", STRUCTURES, ids=lambda s: s.value)
    def test_r17_deck_exhaustion_reshuffles_replay_exactly(self, structure: Structure) -> None:
        """Seven players drawing five each exhaust the stub; the replay deals the same cards (R17)."""
        rng = random.Random(f"phh-r17-{structure.value}")
        reshuffled = 0
        for _ in range(40):
            config = GameConfig(structure=structure)
            hand = play_random_hand(config, 7, rng, draw_heavy=True)
            reshuffled += any(type(e) is StubReshuffled for e in hand.events)
            assert_round_trip(hand)
        assert reshuffled >= 5

    def test_phhs_file_holds_many_hands_as_numbered_tables(self) -> None:
        """``dumps_phhs`` writes ``[1]``, ``[2]``, ... tables that ``load_phh`` reads back in order."""
        rng = random.Random(7)
        hands = [play_random_hand(GameConfig(structure=s), 3, rng) for s in STRUCTURES]
        text = dumps_phhs(hand_to_phh(h) for h in hands)
        assert text.startswith("[1]\n")
        records = load_phh(text, source="many.phhs")
        assert [r.name for r in records] == ["1", "2", "3"]
        assert [r.variant for r in records] == ["F5D", "P5D", "N5D"]
        for record, hand in zip(records, hands, strict=True):
            order = player_order(hand.n, hand.button)
            assert replay(record).stacks == [hand.stacks[seat] for seat in order]

    def test_incomplete_hand_exports_without_finishing_stacks(self) -> None:
        """A hand still in play is written without ``finishing_stacks`` and replays as far as it went."""
        hand = Hand(GameConfig(), [50, 50, 50], 0, Deck.shuffled(random.Random(3)))
        hand.check_or_call()
        phh = hand_to_phh(hand)
        assert "finishing_stacks" not in phh
        [record] = load_phh(dumps_phh(phh))
        with pytest.raises(ReplayError, match="end before the hand is over"):
            replay(record)
        assert replay(record, allow_incomplete=True).actor == 0  # p1, the small blind


# --- the written conventions ------------------------------------------------------------


def _stacked(holes_by_seat: list[str], n: int, button: int, extra: str = "") -> Deck:
    """A deck dealing each seat's five cards (R9: one at a time from the button's left)."""
    holes = [parse_cards(h) for h in holes_by_seat]
    left = (button + 1) % n
    order = [(left + k) % n for k in range(n)]
    cards = [holes[seat][j] for j in range(5) for seat in order]
    cards.extend(parse_cards(extra))
    return Deck.stacked([*cards, *(card for card in STANDARD_DECK if card not in cards)])


class TestConventions:
    def test_r29_proven_openers_are_not_written_as_shown(self) -> None:
        """An opener who wins uncontested proves its jacks (R29), but PHH has no ``sm`` line for it:
        ``sm`` means a hand shown at showdown, and the opener's other cards were never shown."""
        config = GameConfig(forced_bets=ForcedBets.ANTES, ante=1, opening=Opening.JACKS_OR_BETTER)
        deck = _stacked(["Ac Kd 8h 6s 3c", "Tc Td 4h 5s 2c", "Jc Jd 7h 5d 2h"], 3, 0)
        hand = Hand(config, [100] * 3, 0, deck)
        hand.check()
        hand.bet_or_raise(2)  # seat 2 opens with jacks
        hand.fold()
        hand.fold()
        phh = hand_to_phh(hand)
        assert [line for line in phh["actions"] if " sm" in line] == []
        assert phh["actions"][-4:] == ["p1 cc", "p2 cbr 2", "p3 f", "p1 f"]
        assert_round_trip(hand)

    def test_r7_headsup_blinds_reverse_assigned_in_phh(self) -> None:
        """Heads-up, p2 is the button and posts the small blind: PHH writes ``[SB, BB]``, p2 acts first."""
        deck = _stacked(["AsAhAdKsKh", "2c3c4c5c7d"], 2, 0, "6c")
        hand = Hand(GameConfig(small_bet=2), [100, 50], 0, deck)
        hand.bet_or_raise(4)  # seat 0, the button, acts first (R7)
        hand.check_or_call()
        hand.discard(parse_cards("7d"))  # seat 1 draws first: left of the button
        hand.discard(())
        hand.check_or_call()
        hand.check_or_call()
        phh = hand_to_phh(hand)
        assert phh["blinds_or_straddles"] == [1, 2]
        assert phh["starting_stacks"] == [50, 100]  # p1 = the big blind, p2 = the button
        assert phh["small_bet"] == 2 and phh["big_bet"] == 4 and "min_bet" not in phh
        assert phh["actions"] == [
            "d dh p1 2c3c4c5c7d",
            "d dh p2 AsAhAdKsKh",
            "p2 cbr 4",
            "p1 cc",
            "p1 sd 7d",
            "p2 sd",
            "d dh p1 6c",
            "p1 cc",
            "p2 cc",
            "p1 sm 2c3c4c5c6c",
            "p2 sm AsAhAdKsKh",
        ]
        assert phh["finishing_stacks"] == [54, 96]
        assert_round_trip(hand)

    def test_r15_all_discards_come_before_the_replacements(self) -> None:
        """At the draw every ``sd`` line comes first, then one ``d dh`` per drawer, in draw order."""
        deck = _stacked(["2c3c4c5c7d", "9s9h8c7c6h", "AsAhAdKsKh"], 3, 2, "6cTdJd")
        hand = Hand(GameConfig(structure=Structure.NO_LIMIT, big_blind=2), [40, 40, 40], 2, deck)
        hand.check_or_call()  # seat 2, the button, first left of the big blind
        hand.check_or_call()
        hand.check_or_call()
        hand.discard(parse_cards("7d"))
        hand.discard(parse_cards("9s9h"))
        hand.discard(())
        phh = hand_to_phh(hand)
        assert phh["min_bet"] == 2 and "small_bet" not in phh
        assert phh["actions"][6:11] == [
            "p1 sd 7d",
            "p2 sd 9s9h",
            "p3 sd",
            "d dh p1 6c",
            "d dh p2 TdJd",
        ]

    def test_r19_mucked_hand_is_a_bare_sm(self) -> None:
        """Under ``showdown_reveal = "muck"`` a hand not shown is written ``pN sm`` with no cards."""
        deck = _stacked(["2c3c4c5c7d", "AsAhAdKsKh"], 2, 0)
        config = GameConfig(showdown_reveal=ShowdownReveal.MUCK)
        hand = Hand(config, [100, 100], 0, deck)
        for _ in range(2):
            hand.check_or_call()
        hand.discard(())
        hand.discard(())
        for _ in range(2):
            hand.check_or_call()
        phh = hand_to_phh(hand)
        assert phh["actions"][-2:] == ["p1 sm AsAhAdKsKh", "p2 sm"]
        assert phh["_showdown_reveal"] == "muck"
        assert_round_trip(hand)

    def test_uncalled_chips_and_uncontested_pots_have_no_line(self) -> None:
        """A raise nobody calls returns without a line, and the winner shows nothing (R18)."""
        deck = _stacked(["AsAhAdKsKh", "2c3c4c5c7d", "9s9h8c7c6h"], 3, 0)
        hand = Hand(GameConfig(structure=Structure.NO_LIMIT), [40, 40, 40], 0, deck)
        hand.bet_or_raise(10)
        hand.fold()
        hand.fold()
        assert hand_to_phh(hand)["actions"][3:] == ["p3 cbr 10", "p1 f", "p2 f"]
        assert_round_trip(hand)

    def test_players_and_seats_are_written_in_phh_order(self) -> None:
        """``players`` and ``seats`` given by engine seat come out from the button's left."""
        rng = random.Random(11)
        hand = play_random_hand(GameConfig(), 4, rng)
        names = ["north", "east", "south", "west"]
        phh = hand_to_phh(hand, players=names, seats=[1, 3, 5, 7], hand_number=42, table="t1")
        order = player_order(4, hand.button)
        assert phh["players"] == [names[s] for s in order]
        assert phh["seats"] == [[1, 3, 5, 7][s] for s in order]
        assert phh["hand"] == 42 and phh["table"] == "t1"
        [record] = load_phh(dumps_phh(phh))
        assert record.name == "42" and record.players == tuple(phh["players"])

    def test_written_text_is_plain_toml(self) -> None:
        """The output is TOML that the standard library reads back to the same fields."""
        hand = play_random_hand(GameConfig(ante=1), 5, random.Random(5))
        phh = hand_to_phh(hand, players=["a", "b", "c", "d", "e"])
        assert tomllib.loads(dumps_phh(phh)) == phh

    def test_fixture_file_replays(self) -> None:
        """The documented example in ``data/`` replays to its finishing stacks."""
        records = load_phh((DATA / "example.phh").read_text(), source="example.phh")
        hand = replay(records[0])
        assert hand.stacks == list(records[0].finishing_stacks)


# --- corrupt files ----------------------------------------------------------------------

GOOD = """\
variant = "N5D"
antes = [0, 0, 0]
blinds_or_straddles = [1, 2, 0]
min_bet = 2
starting_stacks = [100, 100, 100]
actions = [
    "d dh p1 AsAhAdKsKh",
    "d dh p2 2c3c4c5c7d",
    "d dh p3 9s9h8c7c6h",
    "p3 cbr 10",
    "p1 f",
    "p2 cc",
    "p2 sd 7d",
    "p3 sd 9s9h",
    "d dh p2 6c",
    "d dh p3 TdJd",
    "p2 cc",
    "p3 cc",
    "p2 sm 2c3c4c5c6c",
    "p3 sm 8c7c6hTdJd",
]
finishing_stacks = [99, 111, 90]
"""


class TestCorruptFiles:
    def test_good_file_replays(self) -> None:
        """The baseline for the cases below replays cleanly."""
        [record] = load_phh(GOOD, source="good.phh")
        assert replay(record).stacks == [99, 111, 90]

    def test_bad_toml_names_the_file(self) -> None:
        """Text that is not TOML is a format error naming the file."""
        with pytest.raises(PhhFormatError, match=r"^bad\.phh: not valid TOML"):
            load_phh('variant = "N5D\nantes = [', source="bad.phh")

    def test_unknown_variant_is_named(self) -> None:
        """A code other than F5D/P5D/N5D is refused, naming the code."""
        with pytest.raises(PhhFormatError, match=r"x\.phh: hand 1: unknown variant 'NT'"):
            load_phh(GOOD.replace('"N5D"', '"NT"'), source="x.phh")

    def test_missing_field_is_named(self) -> None:
        """A required field that is absent is named."""
        with pytest.raises(PhhFormatError, match="missing field 'min_bet'"):
            load_phh(GOOD.replace("min_bet = 2\n", ""))

    def test_straddles_are_refused(self) -> None:
        """Straddles are not an arena game."""
        with pytest.raises(PhhFormatError, match="no straddles"):
            load_phh(GOOD.replace("[1, 2, 0]", "[1, 2, 4]"))

    def test_illegal_action_names_file_hand_and_action(self) -> None:
        """An action the engine refuses stops the replay, naming where and why."""
        text = GOOD.replace('"p3 cbr 10"', '"p3 cbr 1000"')
        [record] = load_phh(text, source="bad.phh")
        with pytest.raises(ReplayError) as caught:
            replay(record)
        error = caught.value
        assert (error.source, error.hand, error.action, error.action_index) == (
            "bad.phh", "1", "p3 cbr 1000", 4,
        )  # fmt: skip
        assert "above the maximum of 100" in str(error)

    def test_action_out_of_turn_is_named(self) -> None:
        """A player acting when it is not their turn is refused."""
        [record] = load_phh(GOOD.replace('"p1 f"', '"p2 f"'))
        with pytest.raises(ReplayError, match="p2 acts out of turn: p1 is to act"):
            replay(record)

    def test_finishing_stacks_mismatch(self) -> None:
        """``finishing_stacks`` that differ from the replay's are an error."""
        [record] = load_phh(GOOD.replace("[99, 111, 90]", "[99, 90, 111]"))
        with pytest.raises(ReplayError, match="finishing_stacks"):
            replay(record)

    def test_unknown_cards_cannot_be_replayed(self) -> None:
        """Cards written ``??`` cannot be dealt: a clear error, not a crash."""
        [record] = load_phh(GOOD.replace("d dh p1 AsAhAdKsKh", "d dh p1 ??????????"))
        with pytest.raises(ReplayError, match=r"unknown cards \('\?\?'\)"):
            replay(record)

    def test_card_dealt_twice(self) -> None:
        """The same card dealt twice from one stub is impossible."""
        [record] = load_phh(GOOD.replace("d dh p2 6c", "d dh p2 As"))
        with pytest.raises(ReplayError, match="As is dealt twice"):
            replay(record)

    def test_replacements_must_match_discards(self) -> None:
        """A drawer must be dealt exactly as many cards as discarded."""
        [record] = load_phh(GOOD.replace("d dh p3 TdJd", "d dh p3 Td"))
        with pytest.raises(ReplayError, match="discards 2 but is dealt 1"):
            replay(record)

    def test_garbled_action_line(self) -> None:
        """An action that is not PHH is a format error naming the line."""
        [record] = load_phh(GOOD.replace('"p1 f"', '"p1 jump"'))
        with pytest.raises(PhhFormatError, match="action 5 'p1 jump'"):
            replay(record)

    def test_shown_cards_must_have_been_held(self) -> None:
        """A showdown line with cards the player never held is refused."""
        [record] = load_phh(GOOD.replace("p2 sm 2c3c4c5c6c", "p2 sm 2c3c4c5cKd"))
        with pytest.raises(ReplayError, match="p2 never held Kd"):
            replay(record)


def test_public_names_are_curated() -> None:
    """``arena.history`` exports exactly its public API, each name once."""
    assert sorted(arena.history.__all__) == sorted(set(arena.history.__all__))
    assert set(arena.history.__all__) == {
        name
        for name in dir(arena.history)
        if not name.startswith("_") and not inspect.ismodule(getattr(arena.history, name))
    }  # submodules (arena.history.pokerkit, once imported) are not names of the package
