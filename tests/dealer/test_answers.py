"""The dealer's pieces split out of the match runner: stale answers and the chip ledger."""

from __future__ import annotations

import pytest

from arena.dealer import MAX_STALE, MatchResult
from arena.dealer._answers import (
    MAX_REMEMBERED,
    IssuedIds,
    StaleFlood,
    describe_action,
    receive_action,
)
from arena.dealer._chips import ChipLedger
from arena.engine import HandSettlement
from arena.protocol import MessageFault, pb


class _Replay:
    """A connection that hands back a fixed list of bot messages, in order."""

    def __init__(self, messages: list[pb.BotMessage]) -> None:
        self.messages = list(messages)

    async def send(self, message: pb.DealerMessage) -> None:
        raise AssertionError("receive_action sends nothing")

    async def receive(self) -> pb.BotMessage:
        return self.messages.pop(0)

    async def aclose(self) -> None:
        return None


def _answer(decision_id: str) -> pb.BotMessage:
    return pb.BotMessage(action=pb.Action(decision_id=decision_id, kind=pb.ACTION_KIND_CALL))


class TestIssuedIds:
    def test_only_ids_asked_of_this_seat_are_remembered(self) -> None:
        """R24: seat asked 1.1 and 1.3 (the opponent had 1.2): only those two are its own."""
        issued = IssuedIds()
        issued.add("1.1")
        issued.add("1.3")
        assert "1.1" in issued and "1.3" in issued
        assert "1.2" not in issued  # the opponent's decision
        assert "99999.3" not in issued  # a hand that never happened, the number of a real one
        assert not any(text in issued for text in ("", "x", "0.1", "1.0", "1.01", "3"))

    def test_the_memory_is_bounded(self) -> None:
        """Past ``limit`` ids the oldest is forgotten, so a long match keeps a fixed size."""
        issued = IssuedIds(limit=3)
        for number in range(1, 6):
            issued.add(f"1.{number}")
        assert 3 == len(issued)
        assert "1.2" not in issued and "1.3" in issued and "1.5" in issued

    def test_the_default_bound(self) -> None:
        """The default remembers MAX_REMEMBERED ids."""
        issued = IssuedIds()
        for number in range(MAX_REMEMBERED + 10):
            issued.add(f"1.{number + 1}")
        assert MAX_REMEMBERED == len(issued)


def _issued(*ids: str) -> IssuedIds:
    issued = IssuedIds()
    for decision_id in ids:
        issued.add(decision_id)
    return issued


class TestReceiveAction:
    @pytest.mark.trio
    async def test_stale_answers_and_hellos_are_dropped_and_counted(self) -> None:
        """Two stale answers and an extra Hello come before the answer: three drops."""
        hello = pb.BotMessage(hello=pb.Hello(name="again"))
        connection = _Replay([_answer("1.1"), hello, _answer("1.2"), _answer("2.3")])
        dropped: list[None] = []
        action = await receive_action(
            connection,
            decision_id="2.3",
            issued=_issued("1.1", "1.2", "2.3"),
            on_dropped=lambda: dropped.append(None),
        )
        assert "2.3" == action.decision_id
        assert 3 == len(dropped)

    @pytest.mark.trio
    async def test_a_flood_past_max_stale_raises(self) -> None:
        """MAX_STALE drops are allowed; the next one is a flood naming the decision."""
        connection = _Replay([_answer("1.1")] * (MAX_STALE + 1) + [_answer("1.2")])
        with pytest.raises(StaleFlood, match=rf"more than {MAX_STALE} .* 1\.2 waited"):
            await receive_action(
                connection, decision_id="1.2", issued=_issued("1.1", "1.2"), on_dropped=lambda: None
            )

    @pytest.mark.trio
    async def test_an_empty_message_is_malformed(self) -> None:
        """A BotMessage with no kind set is a MALFORMED fault, not a drop."""
        with pytest.raises(MessageFault) as caught:
            await receive_action(
                _Replay([pb.BotMessage()]),
                decision_id="1.1",
                issued=_issued("1.1"),
                on_dropped=lambda: None,
            )
        assert pb.FAULT_REASON_MALFORMED == caught.value.reason

    @pytest.mark.trio
    @pytest.mark.parametrize("foreign", ["99999.1", "1.2", "1.9", "bogus"])
    async def test_an_id_never_asked_of_this_seat_is_the_answer_not_a_drop(
        self, foreign: str
    ) -> None:
        """R24: an unknown hand, the opponent's decision (1.2), a later or a garbage id are
        not stale: receive_action hands them back, and the runner records WRONG_DECISION_ID."""
        dropped: list[None] = []
        connection = _Replay([_answer(foreign), _answer("1.3")])
        action = await receive_action(
            connection,
            decision_id="1.3",
            issued=_issued("1.1", "1.3"),
            on_dropped=lambda: dropped.append(None),
        )
        assert foreign == action.decision_id
        assert [] == dropped


def test_describe_action_says_what_was_played() -> None:
    """Fault records say the played action briefly: a raise with its amount, a draw by count."""
    raise_to = pb.Action(kind=pb.ACTION_KIND_BET_RAISE, amount=4)
    assert "bet_raise 4" == describe_action(raise_to)
    assert "stand pat" == describe_action(pb.Action(kind=pb.ACTION_KIND_DISCARD))
    assert "fold" == describe_action(pb.Action(kind=pb.ACTION_KIND_FOLD))


def _settlement(payoffs: dict[int, int], carried: int = 0) -> HandSettlement:
    return HandSettlement(
        hand_number=1, payoffs=tuple(payoffs.items()), carried_pot=carried, busted=(), departed=()
    )


class TestChipLedger:
    def test_payoffs_by_seat_with_seats_not_dealt_at_zero(self) -> None:
        """Seat 1 sat the deal out: its payoff is 0."""
        ledger = ChipLedger(3)
        assert [5, 0, -5] == ledger.payoffs(_settlement({0: 5, 2: -5}), dead=False, hand_number=1)

    def test_payoffs_that_do_not_add_up_stop_the_table(self) -> None:
        """R26: a chip appearing from nowhere is an AssertionError naming the hand."""
        with pytest.raises(AssertionError, match=r"hand 7: .* do not add up"):
            ChipLedger(2).payoffs(_settlement({0: 5, 1: -4}), dead=False, hand_number=7)

    def test_antes_of_dead_deals_go_back_when_the_match_ends(self) -> None:
        """R28: two dead deals of 1-chip antes, then the match ends: each seat gets 2 back."""
        ledger = ChipLedger(2)
        result = MatchResult(match_id="m", names=["a", "b"], seed=1, chips_won=[0, 0])
        for carried_before, carried_after in ((0, 2), (2, 4)):
            ledger.deal_starts(carried_before)
            payoffs = ledger.payoffs(
                _settlement({0: -1, 1: -1}, carried_after), dead=True, hand_number=1
            )
            result.payoffs.append(payoffs)
            result.chips_won = [a + b for a, b in zip(result.chips_won, payoffs, strict=True)]
        ledger.refund(result)
        assert [0, 0] == result.chips_won
        assert [[-1, -1], [1, 1]] == result.payoffs

    def test_a_live_deal_clears_the_carried_antes(self) -> None:
        """A dead deal, then a live one that pays the carried pot out: nothing to refund."""
        ledger = ChipLedger(2)
        ledger.payoffs(_settlement({0: -1, 1: -1}, 2), dead=True, hand_number=1)
        ledger.deal_starts(2)
        ledger.payoffs(_settlement({0: 3, 1: -1}), dead=False, hand_number=2)
        result = MatchResult(match_id="m", names=["a", "b"], seed=1, chips_won=[2, -2])
        ledger.refund(result)
        assert [2, -2] == result.chips_won
