"""Rules R5, R7, R20-R22, R25, R26 and R28 across deals: the Table."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from stacking import stacked_deck

from arena.engine import (
    CALL,
    FOLD,
    STAND_PAT,
    BetRaise,
    BlindKind,
    BlindPlan,
    BlindPosted,
    BustPolicy,
    Deck,
    Discard,
    EngineInvariantError,
    ForcedPost,
    GameConfig,
    Hand,
    Phase,
    SeatState,
    Structure,
    Table,
    TableError,
    parse_card,
)

LIMIT = GameConfig()  # fixed limit 2-4: small blind 1, big blind 2
JACKPOTS = GameConfig(forced_bets="antes", ante=1, opening="jacks_or_better")


def seated(
    config: GameConfig = LIMIT, *, at: tuple[int, ...], button: int, seats: int = 7
) -> Table:
    table = Table(config, seats=seats, first_button=button)
    for seat in at:
        table.join(seat, f"p{seat}", 100)
    return table


def fold_around(hand: Hand) -> None:
    """Every seat takes the default (check if free, else fold): the big blind wins."""
    while not hand.is_over:
        hand.apply_default()


def deal(table: Table, seed: int = 0) -> Hand:
    """Deal, fold around and finish one hand; returns it."""
    hand = table.start_hand(Deck.shuffled(random.Random(seed)))
    fold_around(hand)
    table.finish_hand(hand)
    return hand


def blinds_of(table: Table, hand: Hand) -> list[tuple[int, BlindKind, int, bool]]:
    """The forced posts of ``hand`` as (table seat, kind, amount, dead)."""
    dealt = table.positions.dealt
    return [
        (dealt[event.seat], event.kind, event.amount, event.dead)
        for event in hand.events
        if isinstance(event, BlindPosted)
    ]


def play_randomly(hand: Hand, rng: random.Random) -> None:
    while not hand.is_over:
        legal = hand.legal_actions()
        if legal.phase is Phase.DRAW:
            held = hand.holes[legal.seat]
            hand.apply(Discard(tuple(rng.sample(held, rng.randint(0, legal.max_discard)))))
            continue
        roll = rng.random()
        if legal.can_raise and roll < 0.25:
            hand.apply(BetRaise(rng.randint(legal.min_raise_to, legal.max_raise_to)))
        elif legal.can_fold and roll < 0.45:
            hand.apply(FOLD)
        else:
            hand.apply(CALL)


# --- R5: the first button -----------------------------------------------------------


def test_r5_first_button_is_random_but_seeded() -> None:
    """The first button is drawn from the rng: the same seed gives the same seat."""

    def first_button(seed: int) -> int:
        table = Table(LIMIT, seats=7, rng=random.Random(seed))
        for seat in (0, 2, 3, 5, 6):
            table.join(seat, f"p{seat}", 100)
        table.start_hand(Deck.shuffled(random.Random(seed)))
        return table.positions.button

    buttons = [first_button(seed) for seed in range(40)]
    assert buttons == [first_button(seed) for seed in range(40)]
    assert set(buttons) == {0, 2, 3, 5, 6}


def test_r5_r6_first_button_given_then_blinds_to_its_left() -> None:
    """An explicit first button; the next two players post the small and big blind."""
    table = seated(at=(1, 3, 4, 6), button=3)
    hand = table.start_hand(Deck.shuffled(random.Random(0)))
    assert (table.positions.button, table.positions.small_blind, table.positions.big_blind) == (
        3,
        4,
        6,
    )
    assert blinds_of(table, hand) == [
        (4, BlindKind.SMALL, 1, False),
        (6, BlindKind.BIG, 2, False),
    ]


# --- R20: the moving big blind and the dead button -------------------------------------


def test_r20_dead_button_after_small_blind_leaves() -> None:
    """The small blind leaves: next deal the button stays on its empty seat (dead button)."""
    table = seated(at=(0, 1, 2, 3), button=0)
    deal(table)
    assert (table.positions.button, table.positions.small_blind, table.positions.big_blind) == (
        0,
        1,
        2,
    )
    table.leave(1)
    hand = table.start_hand(Deck.shuffled(random.Random(1)))
    positions = table.positions
    assert (positions.button, positions.small_blind, positions.big_blind) == (1, 2, 3)
    assert positions.dead_button
    assert positions.dealt == (0, 2, 3)
    assert hand.button == 0  # the last player before the empty button seat
    assert blinds_of(table, hand) == [(2, BlindKind.SMALL, 1, False), (3, BlindKind.BIG, 2, False)]
    fold_around(hand)
    table.finish_hand(hand)
    deal(table)
    assert (table.positions.button, table.positions.small_blind, table.positions.big_blind) == (
        2,
        3,
        0,
    )


def test_r20_dead_small_blind_after_big_blind_leaves() -> None:
    """The big blind leaves: next deal nobody posts the small blind, the big blind moves on."""
    table = seated(at=(0, 1, 2, 3, 4), button=0)
    deal(table)
    table.leave(2)
    hand = table.start_hand(Deck.shuffled(random.Random(1)))
    positions = table.positions
    assert (positions.button, positions.small_blind, positions.big_blind) == (1, None, 3)
    assert blinds_of(table, hand) == [(3, BlindKind.BIG, 2, False)]
    fold_around(hand)
    table.finish_hand(hand)
    deal(table)
    assert (table.positions.button, table.positions.small_blind, table.positions.big_blind) == (
        2,
        3,
        4,
    )
    assert table.positions.dead_button


def test_r20_each_player_pays_one_big_blind_per_orbit() -> None:
    """Big and small blinds go round one player at a time, and the button follows the small blind."""
    table = seated(at=(0, 1, 3, 4, 6), button=6)
    big: Counter[int] = Counter()
    small: Counter[int] = Counter()
    previous = None
    for n in range(15):
        hand = table.start_hand(Deck.shuffled(random.Random(n)))
        positions = table.positions
        for seat, kind, _, _ in blinds_of(table, hand):
            (big if kind is BlindKind.BIG else small)[seat] += 1
        if previous is not None:
            assert positions.button == previous.small_blind
            assert positions.small_blind == previous.big_blind
        previous = positions
        fold_around(hand)
        table.finish_hand(hand)
    assert big == dict.fromkeys((0, 1, 3, 4, 6), 3)
    assert small == dict.fromkeys((0, 1, 3, 4, 6), 3)


def test_r20_big_blind_moves_one_active_seat_when_players_leave_and_join() -> None:
    """With players leaving and a new one waiting for it, nobody pays two big blinds in one orbit."""
    table = seated(at=(0, 1, 2, 3, 4, 5), button=0)
    order = []
    for n in range(14):
        if n == 2:
            table.leave(4)  # due the big blind next
        if n == 5:
            table.join(4, "newcomer", 100)  # waits for the big blind
        deal(table, n)
        order.append(table.positions.big_blind)
    assert order[:8] == [2, 3, 5, 0, 1, 2, 3, 4]  # seat 4 empty, then the newcomer's turn
    assert order[8:] == [5, 0, 1, 2, 3, 4]


# --- R7 heads-up and the transitions ------------------------------------------------------


def test_r7_r20_three_to_two_nobody_gets_the_big_blind_twice() -> None:
    """Going heads-up, the big blind moves on and the other player has the button and posts the small blind."""
    table = seated(at=(0, 2, 4), button=0)
    deal(table)  # button 0, small 2, big 4
    table.leave(0)
    hand = table.start_hand(Deck.shuffled(random.Random(1)))
    positions = table.positions
    assert positions.big_blind == 2
    assert positions.button == positions.small_blind == 4
    assert hand.button == positions.index_of(4)
    assert blinds_of(table, hand) == [(4, BlindKind.SMALL, 1, False), (2, BlindKind.BIG, 2, False)]
    fold_around(hand)
    table.finish_hand(hand)
    deal(table)
    assert (table.positions.button, table.positions.big_blind) == (2, 4)


def test_r7_r20_three_to_two_when_big_blind_leaves() -> None:
    """The last big blind leaves: the big blind goes to the next player, not back to the old one."""
    table = seated(at=(0, 2, 4), button=0)
    deal(table)  # button 0, small 2, big 4
    table.leave(4)
    deal(table, 1)
    assert table.positions.big_blind == 0
    assert table.positions.button == table.positions.small_blind == 2


def test_r20_r21_two_to_three_keeps_the_blinds_in_order() -> None:
    """A third player joins heads-up: button, small blind and big blind stay in clockwise order."""
    table = seated(at=(0, 4), button=0)
    deal(table)  # heads-up: button and small blind 0, big blind 4
    table.join(2, "third", 100, post_now=True)  # between the heads-up button and big blind
    deal(table, 1)
    positions = table.positions
    # The big blind moves on to 0; the button cannot stay there, so it goes to the seat
    # before the small blind (3, empty): seat 2 is then left of the big blind and may post.
    assert (positions.button, positions.small_blind, positions.big_blind) == (3, 4, 0)
    assert positions.dealt == (0, 2, 4)
    assert positions.posts == ((2, 2, 0),)
    deal(table, 2)
    positions = table.positions
    assert (positions.button, positions.small_blind, positions.big_blind) == (4, 0, 2)


def test_r20_r21_two_to_three_newcomer_on_the_moved_button_waits() -> None:
    """If the moved button lands on the newcomer's seat, they wait and take the next big blind."""
    table = seated(at=(0, 3), button=0)
    deal(table)  # heads-up: button and small blind 0, big blind 3
    table.join(2, "third", 100, post_now=True)
    deal(table, 1)
    positions = table.positions
    assert positions.dealt == (0, 3)
    assert (positions.button, positions.small_blind, positions.big_blind) == (3, 3, 0)
    deal(table, 2)
    positions = table.positions
    assert (positions.button, positions.small_blind, positions.big_blind) == (3, 0, 2)
    assert positions.dealt == (0, 2, 3)
    assert positions.posts == ()


# --- R21: joining -----------------------------------------------------------------------


def test_r21_new_player_in_big_blind_position_posts_and_plays() -> None:
    """A player who sits down where the big blind goes next is dealt in as the big blind."""
    table = seated(at=(0, 1, 2, 4), button=0)
    deal(table)  # button 0, small 1, big 2
    table.join(3, "newcomer", 50)
    assert table.seat_info(3).state is SeatState.WAITING
    hand = table.start_hand(Deck.shuffled(random.Random(1)))
    positions = table.positions
    assert positions.big_blind == 3
    assert 3 in positions.dealt
    assert positions.posts == ()
    assert blinds_of(table, hand) == [(2, BlindKind.SMALL, 1, False), (3, BlindKind.BIG, 2, False)]
    assert table.seat_info(3).state is SeatState.ACTIVE
    assert not table.seat_info(3).owes_entry


def test_r21_player_left_of_the_blinds_may_post_to_play_at_once() -> None:
    """Left of the blinds a new player posts a live big blind and plays, or waits for the big blind."""
    table = seated(at=(0, 1, 2, 3), button=0)
    deal(table)  # button 0, small 1, big 2
    table.join(5, "eager", 100, post_now=True)
    table.join(6, "patient", 100)
    hand = table.start_hand(Deck.shuffled(random.Random(1)))
    positions = table.positions  # button 1, small 2, big 3
    assert positions.dealt == (0, 1, 2, 3, 5)
    assert positions.posts == ((5, 2, 0),)
    assert (5, BlindKind.BIG, 2, False) in blinds_of(table, hand)
    assert hand.bets[positions.index_of(5)] == 2  # live: it counts as the seat's bet
    fold_around(hand)
    table.finish_hand(hand)
    assert table.seat_info(6).state is SeatState.WAITING
    deal(table, 2)  # big blind 5
    assert 6 not in table.positions.dealt
    hand = table.start_hand(Deck.shuffled(random.Random(3)))
    assert table.positions.big_blind == 6
    assert table.positions.posts == ()


def test_r21_player_between_button_and_blinds_waits() -> None:
    """A new player between the button and the big blind waits until the button has passed."""
    table = seated(at=(0, 1, 3, 4, 5), button=0)
    deal(table)  # button 0, small 1, big 3
    table.join(2, "newcomer", 100, post_now=True)  # between the small and big blind
    deal(table, 1)
    positions = table.positions
    assert (positions.button, positions.small_blind, positions.big_blind) == (1, 3, 4)
    assert 2 not in positions.dealt  # still between the button and the big blind
    assert table.seat_info(2).state is SeatState.WAITING
    hand = table.start_hand(Deck.shuffled(random.Random(2)))
    positions = table.positions
    assert (positions.button, positions.small_blind, positions.big_blind) == (3, 4, 5)
    assert 2 in positions.dealt  # the button passed: now it posts and plays
    assert positions.posts == ((2, 2, 0),)
    assert (2, BlindKind.BIG, 2, False) in blinds_of(table, hand)


def test_r21_player_on_the_dead_button_seat_waits() -> None:
    """Sitting down on an empty button seat does not buy the button: the player waits."""
    table = seated(at=(0, 1, 2, 3), button=0)
    deal(table)  # button 0, small 1, big 2
    table.leave(1)
    table.join(1, "newcomer", 100, post_now=True)
    deal(table, 1)
    assert table.positions.button == 1
    assert table.positions.dealt == (0, 2, 3)
    deal(table, 2)
    assert 1 in table.positions.dealt


# --- R22: missed blinds -----------------------------------------------------------------


def test_r22_missed_big_blind_posts_live_big_and_dead_small() -> None:
    """A player the big blind passed gets MB and comes back with a live big and a dead small blind."""
    table = seated(at=(0, 1, 2, 3, 4), button=0)
    deal(table)  # button 0, small 1, big 2
    table.sit_out(3)
    deal(table, 1)
    assert table.positions.big_blind == 4
    assert table.seat_info(3).markers == ("MB",)
    table.sit_in(3, post_missed=True)
    hand = table.start_hand(Deck.shuffled(random.Random(2)))
    positions = table.positions
    assert 3 in positions.dealt
    assert positions.posts == ((3, 2, 1),)
    assert (3, BlindKind.BIG, 2, False) in blinds_of(table, hand)
    assert (3, BlindKind.DEAD_SMALL, 1, True) in blinds_of(table, hand)
    index = positions.index_of(3)
    assert hand.bets[index] == 2  # the dead small blind is not part of the bet
    assert hand.committed[index] == 3
    assert table.seat_info(3).markers == ()
    fold_around(hand)
    table.finish_hand(hand)
    table.check_invariants()


@pytest.mark.parametrize("structure", list(Structure), ids=lambda s: s.value)
def test_r22_dead_small_blind_is_in_the_pot_for_everyone(structure: Structure) -> None:
    """A returning MB player's dead small blind joins the main pot: no side pot only the poster can win."""
    hands = ["2c 3d 4h 5s 7c", "Ac Ad Ah Ks Kd", "2d 3h 4s 6c 8d", "2h 3s 5c 6d 8h"]
    config = GameConfig(structure=structure, small_blind=1, big_blind=2)
    plan = BlindPlan(2, 1, (ForcedPost(3, live=2, dead=1),))
    hand = Hand(config, [100] * 4, 0, stacked_deck(hands, 0), blinds=plan)
    assert hand.bets == [0, 1, 2, 2]  # the dead chip is nobody's bet
    while not hand.is_over:
        hand.apply(CALL if hand.phase is not Phase.DRAW else STAND_PAT)
    assert [(pot.amount, sorted(pot.eligible)) for pot in hand.pots] == [(9, [0, 1, 2, 3])]
    assert hand.payoffs == [-2, 7, -2, -3]


def test_r22_returning_mb_players_dead_small_blind_goes_to_the_winner() -> None:
    """Through the Table: everyone checks or calls down; one pot holds every chip, open to all."""
    table = seated(at=(0, 1, 2, 3, 4), button=0)
    deal(table)
    table.sit_out(3)
    deal(table, 1)
    table.sit_in(3, post_missed=True)
    hand = table.start_hand(Deck.shuffled(random.Random(2)))
    assert table.positions.posts == ((3, 2, 1),)
    while not hand.is_over:
        hand.apply(CALL if hand.phase is not Phase.DRAW else STAND_PAT)
    assert [(pot.amount, sorted(pot.eligible)) for pot in hand.pots] == [(11, [0, 1, 2, 3, 4])]
    winners = [seat for seat, won in enumerate(hand.payoffs) if won > 0]
    returning = table.positions.index_of(3)
    losses = [won for seat, won in enumerate(hand.payoffs) if seat not in winners]
    assert losses == [-3 if seat == returning else -2 for seat in range(5) if seat not in winners]
    assert sum(hand.payoffs) == 0
    table.finish_hand(hand)
    table.check_invariants()


def test_r22_missed_big_blind_can_wait_for_the_big_blind_and_pay_nothing_extra() -> None:
    """A player with MB who waits is dealt in when the big blind reaches them, posting only it."""
    table = seated(at=(0, 1, 2, 3, 4), button=0)
    deal(table)
    table.sit_out(3)
    deal(table, 1)  # big blind 4: seat 3 missed it
    table.sit_in(3)
    seen = []
    for n in range(2, 6):
        hand = table.start_hand(Deck.shuffled(random.Random(n)))
        seen.append((table.positions.big_blind, 3 in table.positions.dealt))
        if table.positions.big_blind == 3:
            assert table.positions.posts == ()
            assert [b for b in blinds_of(table, hand) if b[0] == 3] == [
                (3, BlindKind.BIG, 2, False)
            ]
        fold_around(hand)
        table.finish_hand(hand)
    assert seen == [(0, False), (1, False), (2, False), (3, True)]


def test_r22_missed_small_only_waits_for_button_between_blinds_and_button() -> None:
    """A player who paid the big blind and then missed the small blind waits for the button to pass."""
    table = seated(at=(0, 1, 2, 3, 4), button=0)
    deal(table)  # button 0, small 1, big 2
    table.sit_out(2)
    deal(table, 1)
    positions = table.positions
    assert (positions.button, positions.small_blind, positions.big_blind) == (1, None, 3)
    assert table.seat_info(2).markers == ("MS",)
    table.sit_in(2, post_missed=True)
    deal(table, 2)
    positions = table.positions
    assert (positions.button, positions.big_blind) == (2, 4)  # its own seat is the (dead) button
    assert positions.dead_button
    assert 2 not in positions.dealt
    hand = table.start_hand(Deck.shuffled(random.Random(3)))
    positions = table.positions
    assert (positions.button, positions.small_blind, positions.big_blind) == (3, 4, 0)
    assert 2 in positions.dealt
    assert positions.posts == ((2, 0, 1),)  # the small blind, dead
    assert [b for b in blinds_of(table, hand) if b[0] == 2] == [(2, BlindKind.DEAD_SMALL, 1, True)]
    assert hand.bets[positions.index_of(2)] == 0


def test_r22_r25_seat_sat_out_during_a_deal_plays_it_out_then_owes() -> None:
    """The dealer sits out a crashed bot mid-deal: it finishes that deal, then collects markers."""
    table = seated(at=(0, 1, 2, 3), button=0)
    hand = table.start_hand(Deck.shuffled(random.Random(0)))
    table.sit_out(3)  # due the big blind next deal
    assert table.seat_info(3).in_hand
    fold_around(hand)
    table.finish_hand(hand)
    deal(table, 1)
    assert 3 not in table.positions.dealt
    assert table.positions.big_blind == 0
    assert table.seat_info(3).missed_big


def test_r25_sitting_in_without_missed_blinds_plays_at_once() -> None:
    """A player who sat out and came back before any blind passed owes nothing."""
    table = seated(at=(0, 1, 2, 3, 4), button=0)
    deal(table)  # button 0, small 1, big 2
    table.sit_out(4)
    table.sit_in(4)
    assert table.seat_info(4).state is SeatState.ACTIVE
    deal(table, 1)
    assert 4 in table.positions.dealt
    assert table.positions.posts == ()


# --- R28: Jackpots ----------------------------------------------------------------------


def _no_openers_deck(players: int) -> Deck:
    """Every player gets 2, 4, 6, 8, 10 of mixed suits: nobody can open (R28)."""
    suits = "cdhs"
    cards = [
        parse_card(f"{rank}{suits[(player + k) % 4]}")
        for k, rank in enumerate("2468T")
        for player in range(players)
    ]
    return Deck.stacked(cards)


def test_r28_dead_hand_carries_pot_and_deal_passes_left() -> None:
    """Nobody opens: the antes stay in the pot, everyone antes again, the deal passes left."""
    table = seated(JACKPOTS, at=(0, 2, 5), button=0)
    hand = table.start_hand(_no_openers_deck(3))
    assert table.positions.button == 0
    while not hand.is_over:
        assert not hand.legal_actions().can_raise  # no openers
        hand.apply_default()
    assert hand.dead
    settlement = table.finish_hand(hand)
    assert settlement.carried_pot == 3
    assert table.carried_pot == 3
    assert [info.stack for info in table.seats if info.name] == [99, 99, 99]
    assert table.total_chips() == 300

    hand = table.start_hand(_no_openers_deck(3))
    assert table.positions.button == 2  # passed to the left
    assert hand.carried_pot == 3
    assert hand.pot_total == 6  # everyone anted again
    fold_around(hand)
    table.finish_hand(hand)
    assert table.carried_pot == 6

    rng = random.Random(7)
    for _ in range(50):  # deal until somebody opens and wins it all
        hand = table.start_hand(Deck.shuffled(rng))
        play_randomly(hand, rng)
        table.finish_hand(hand)
        if not hand.dead:
            break
    assert not hand.dead
    assert table.carried_pot == 0
    assert table.total_chips() == 300


def test_r28_new_player_waits_while_a_dead_pot_is_carried() -> None:
    """A player who did not ante into a carried Jackpots pot is dealt in once it is won."""
    table = seated(JACKPOTS, at=(0, 2, 5), button=0)
    hand = table.start_hand(_no_openers_deck(3))
    fold_around(hand)
    table.finish_hand(hand)
    table.join(3, "late", 100)
    assert table.seat_info(3).state is SeatState.WAITING
    hand = table.start_hand(_no_openers_deck(3))
    assert 3 not in table.positions.dealt


# --- chips, busting, refusals (R26) -----------------------------------------------------


def call_down(hand: Hand) -> None:
    """Everyone calls or checks and stands pat: the best hand wins at showdown."""
    while not hand.is_over:
        hand.apply(Discard(()) if hand.phase is Phase.DRAW else CALL)


def _short_stack_loses_deck() -> Deck:
    """Button 0 deals seat 1 first: seat 1 gets aces, seat 2 seven high, seat 0 kings."""
    hands = ["As Ah 9c 8d 3s", "2c 4d 5h 7s 9d", "Ks Kh Qc Jd 3h"]
    cards = [parse_card(hand.split()[i]) for i in range(5) for hand in hands]
    return Deck.stacked(cards)


@pytest.mark.parametrize("policy", list(BustPolicy))
def test_r26_bust_player_sits_out_or_leaves_by_setting(policy: BustPolicy) -> None:
    """A player left with no chips sits out (default) or leaves the table."""
    table = Table(LIMIT, seats=3, first_button=0, on_bust=policy)
    table.join(0, "a", 100)
    table.join(1, "b", 100)
    table.join(2, "short", 1)  # the big blind, all-in for 1
    hand = table.start_hand(_short_stack_loses_deck())
    call_down(hand)
    settlement = table.finish_hand(hand)
    assert settlement.busted == (2,)
    if policy is BustPolicy.SIT_OUT:
        assert table.seat_info(2).state is SeatState.SITTING_OUT
        assert settlement.departed == ()
        with pytest.raises(TableError):
            table.sit_in(2)
        table.add_chips(2, 40)
        table.sit_in(2, post_missed=True)
        assert table.total_chips() == 241
    else:
        assert table.seat_info(2).state is SeatState.EMPTY
        assert settlement.departed == ((2, "short", 0),)
        assert table.total_chips() == 201
    table.check_invariants()


def test_r26_leaving_mid_deal_waits_for_the_end_of_the_deal() -> None:
    """A player who leaves during a deal takes their chips when it ends."""
    table = seated(at=(0, 1, 2), button=0)
    hand = table.start_hand(Deck.shuffled(random.Random(0)))
    assert table.leave(1) is None
    assert table.seat_info(1).leaving
    fold_around(hand)
    settlement = table.finish_hand(hand)
    assert settlement.departed == ((1, "p1", 99),)
    assert table.seat_info(1).state is SeatState.EMPTY
    assert table.total_chips() == 201
    table.check_invariants()


def test_table_refuses_bad_seating_requests() -> None:
    """Seating mistakes raise TableError and change nothing."""
    table = seated(at=(0, 1), button=0, seats=3)
    with pytest.raises(TableError):
        table.join(0, "again", 100)
    with pytest.raises(TableError):
        table.join(2, "p0", 100)
    with pytest.raises(TableError):
        table.join(2, "broke", 0)
    with pytest.raises(TableError):
        table.join(3, "nowhere", 100)
    with pytest.raises(TableError):
        table.leave(2)
    with pytest.raises(TableError):
        Table(LIMIT, seats=8)
    table.sit_out(1)
    assert not table.can_start()
    with pytest.raises(TableError):
        table.start_hand(Deck.shuffled(random.Random(0)))
    assert table.total_chips() == 200


def test_r26_invariant_check_catches_lost_chips() -> None:
    """A stack changed behind the table's back is an invariant failure."""
    table = seated(at=(0, 1), button=0)
    table._seats[0].stack += 1  # type: ignore[union-attr]
    with pytest.raises(EngineInvariantError):
        table.check_invariants()


def test_statistics_is_a_frozen_snapshot() -> None:
    """statistics() reports positions, chips and every seat's state and markers."""
    table = seated(at=(0, 1, 2), button=0, seats=4)
    deal(table)
    stats = table.statistics()
    assert stats.hands_dealt == 1
    assert stats.total_chips == 300
    assert [info.state for info in stats.seats] == [SeatState.ACTIVE] * 3 + [SeatState.EMPTY]
    with pytest.raises(AttributeError):
        stats.hands_dealt = 2  # type: ignore[misc]


@pytest.mark.parametrize(
    "config",
    [LIMIT, GameConfig(structure="no_limit", ante=1), GameConfig(structure="pot_limit"), JACKPOTS],
    ids=["limit", "no_limit_ante", "pot_limit", "jackpots"],
)
def test_r26_chips_conserved_over_many_hands_with_seat_changes(config: GameConfig) -> None:
    """Hundreds of random deals with joins, leaves and sit-outs: chips only move by joins and leaves."""
    rng = random.Random(2024)
    table = Table(config, seats=7, rng=rng)
    brought = 0
    names = (f"bot{k}" for k in range(10_000))
    for seat in (0, 2, 3, 5):
        table.join(seat, next(names), 100)
        brought += 100
    dealt = 0
    seen: Counter[str] = Counter()
    for _ in range(600):
        for _ in range(rng.randint(0, 2)):
            seat = rng.randrange(7)
            info = table.seat_info(seat)
            roll = rng.random()
            if info.state is SeatState.EMPTY:
                if roll < 0.6:
                    stack = rng.randint(1, 200)
                    table.join(seat, next(names), stack, post_now=rng.random() < 0.5)
                    brought += stack
            elif roll < 0.15:
                brought -= table.leave(seat) or 0
            elif roll < 0.45:
                table.sit_out(seat)
            elif info.stack > 0:
                table.sit_in(seat, post_missed=rng.random() < 0.5)
            else:
                table.add_chips(seat, 50)
                brought += 50
        if not table.can_start():
            continue
        hand = table.start_hand(Deck.shuffled(rng, joker=config.uses_joker))
        dealt += 1
        positions = table.positions
        seen["posts"] += len(positions.posts)
        seen["dead_button"] += positions.dead_button
        seen["dead_small"] += positions.big_blind is not None and positions.small_blind is None
        seen["heads_up"] += len(positions.dealt) == 2
        assert all(table.seat_info(seat).state is SeatState.ACTIVE for seat in positions.dealt)
        if positions.big_blind is not None:
            assert positions.big_blind in positions.dealt
            if len(positions.dealt) == 2:
                assert positions.button == positions.small_blind  # R7
        if rng.random() < 0.05:
            mid = rng.choice(positions.dealt)
            if rng.random() < 0.5:
                table.sit_out(mid)
            else:
                assert table.leave(mid) is None
        play_randomly(hand, rng)
        settlement = table.finish_hand(hand)
        brought -= sum(chips for _, _, chips in settlement.departed)
        table.check_invariants()
        assert table.total_chips() == brought
    assert dealt > 300
    if config.forced_bets == "blinds":  # the R20-R22 paths were all exercised
        assert min(seen.values()) > 0, seen


def test_r21_table_restarts_when_only_waiting_players_could_play() -> None:
    """One player left playing and a newcomer waiting for the big blind: both are dealt in."""
    table = seated(at=(0, 2, 4), button=0)
    deal(table)  # button 0, small 2, big 4
    table.leave(2)
    table.leave(4)
    table.join(3, "newcomer", 100)  # waits for a big blind that would never come
    assert table.can_start()
    hand = table.start_hand(Deck.shuffled(random.Random(1)))
    positions = table.positions
    assert positions.dealt == (0, 3)
    assert positions.big_blind == 0  # the big blind moved on from seat 4
    assert positions.button == positions.small_blind == 3
    assert positions.posts == ()
    assert hand.n == 2
