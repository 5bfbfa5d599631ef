"""The match runner with in-process seats: faults, fallbacks, deadlines and chip conservation."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from arena import protocol
from arena.dealer import LocalBot, MatchSettings, OnFaultLimit, SeatBrokenError, run_match
from arena.engine import GameConfig, Structure
from arena.policies import CallingStation, RandomPolicy, RuleBased
from arena.policies import PolicyBot as SeatedPolicy
from arena.protocol import pb
from arena.sdk import Bot, Decision


def PolicyBot(policy) -> SeatedPolicy:
    return SeatedPolicy(policy.name, policy)


class ScriptedBot(Bot):
    """Answers with whatever ``make`` builds from the request."""

    def __init__(self, make, name: str = "scripted") -> None:
        self.make = make
        self.name = name

    def decide(self, decision):
        return self.make(decision.request)

    def answer(self, request: pb.DecisionRequest) -> pb.BotMessage:
        # no SDK safety net: a ``make`` that raises crashes the in-process bot (its stream
        # breaks, DISCONNECTED), which is what the R25 tests below need
        return protocol.answer(self.decide(Decision(request)), request.decision_id)


def _conserved(result) -> bool:
    return sum(result.chips_won) == 0 and all(sum(row) == 0 for row in result.payoffs)


@pytest.mark.trio
async def test_r26_match_between_policies_conserves_chips() -> None:
    """Every hand's payoffs sum to zero and the match plays every hand."""
    settings = MatchSettings(config=GameConfig(structure=Structure.NO_LIMIT), hands=200, seed=3)
    bots = [
        LocalBot(PolicyBot(RandomPolicy())),
        LocalBot(PolicyBot(RuleBased())),
        LocalBot(PolicyBot(CallingStation())),
    ]
    result = await run_match(bots, settings)
    assert result.hands_played == 200
    assert _conserved(result)
    assert result.faults == []


@pytest.mark.trio
async def test_seeded_match_is_reproducible() -> None:
    """The same seed deals the same cards: two runs give identical per-hand results (R4)."""
    settings = MatchSettings(config=GameConfig(), hands=60, seed=11)
    runs = []
    for _ in range(2):
        bots = [LocalBot(PolicyBot(RuleBased())), LocalBot(PolicyBot(CallingStation()))]
        runs.append((await run_match(bots, settings)).payoffs)
    assert runs[0] == runs[1]


@pytest.mark.trio
async def test_unseeded_match_records_the_seed_it_drew() -> None:
    """Without a seed the CSPRNG picks one and the result records it, so the match can be replayed."""
    settings = MatchSettings(config=GameConfig(), hands=5)
    bots = [LocalBot(PolicyBot(RuleBased())), LocalBot(PolicyBot(CallingStation()))]
    first = await run_match(bots, settings)
    again = await run_match(bots, MatchSettings(config=GameConfig(), hands=5, seed=first.seed))
    assert first.payoffs == again.payoffs


@pytest.mark.trio
async def test_r24_illegal_amount_is_a_recorded_fault_with_default_applied() -> None:
    """A raise far past the maximum becomes the default action and an ILLEGAL_ACTION fault."""
    greedy = ScriptedBot(
        lambda r: (
            pb.Action(decision_id=r.decision_id, kind=pb.ACTION_KIND_BET_RAISE, amount=10**9)
            if r.phase != pb.PHASE_DRAW
            else pb.Action(decision_id=r.decision_id, kind=pb.ACTION_KIND_DISCARD)
        ),
        "greedy",
    )
    result = await run_match(
        [LocalBot(greedy), LocalBot(PolicyBot(CallingStation()))],
        MatchSettings(config=GameConfig(structure=Structure.NO_LIMIT), hands=20, seed=5),
    )
    reasons = {fault.reason for fault in result.faults}
    assert {"ILLEGAL_ACTION"} == reasons
    assert all(f.seat == 0 for f in result.faults)
    assert all(f.applied in ("check", "fold") for f in result.faults)
    assert "amount_too_large" in result.faults[0].detail
    assert _conserved(result)


@pytest.mark.trio
async def test_r24_wrong_decision_id_and_garbage_kinds_are_faults() -> None:
    """A wrong decision id and an unknown action kind each give their own reason code."""
    wrong_id = ScriptedBot(
        lambda r: pb.Action(decision_id="not-it", kind=pb.ACTION_KIND_CALL), "wrong-id"
    )
    garbage = ScriptedBot(lambda r: pb.Action(decision_id=r.decision_id, kind=99), "garbage")
    bad_card = ScriptedBot(
        lambda r: pb.Action(decision_id=r.decision_id, kind=pb.ACTION_KIND_DISCARD, cards=["Zz"]),
        "bad-card",
    )
    result = await run_match(
        [LocalBot(wrong_id), LocalBot(garbage), LocalBot(bad_card)],
        MatchSettings(config=GameConfig(), hands=9, seed=2),
    )
    by_seat = {seat: {f.reason for f in result.faults if f.seat == seat} for seat in range(3)}
    assert {"WRONG_DECISION_ID"} == by_seat[0]
    assert {"MALFORMED"} == by_seat[1]
    assert "MALFORMED" in by_seat[2] or "ILLEGAL_ACTION" in by_seat[2]
    assert result.hands_played == 9
    assert _conserved(result)


@pytest.mark.trio
async def test_r25_crashing_bot_sits_out_and_match_goes_on() -> None:
    """A bot that raises mid-hand is broken: DISCONNECTED fault, sits out, others play on."""
    calls = {"n": 0}

    def crash_on_fifth(request):
        calls["n"] += 1
        if calls["n"] == 5:
            raise RuntimeError("segfault, say")
        return pb.Action(
            decision_id=request.decision_id,
            kind=pb.ACTION_KIND_CALL if request.phase != pb.PHASE_DRAW else pb.ACTION_KIND_DISCARD,
        )

    settings = MatchSettings(config=GameConfig(), hands=30, seed=4, reconnect=False)
    bots = [
        LocalBot(ScriptedBot(crash_on_fifth, "crashy")),
        LocalBot(PolicyBot(RuleBased())),
        LocalBot(PolicyBot(CallingStation())),
    ]
    result = await run_match(bots, settings)
    assert result.hands_played == 30
    assert result.sat_out[0] and not result.sat_out[1]
    assert "DISCONNECTED" in {f.reason for f in result.faults if f.seat == 0}
    assert _conserved(result)


@pytest.mark.trio
async def test_r25_fault_limit_forfeits_when_set() -> None:
    """Past the fault limit a seat forfeits when on_fault_limit is 'forfeit'; with two seats the match ends."""
    wrong = ScriptedBot(lambda r: pb.Action(decision_id="x", kind=pb.ACTION_KIND_CALL), "wrong")
    settings = MatchSettings(
        config=GameConfig(), hands=50, seed=1, fault_limit=3, on_fault_limit=OnFaultLimit.FORFEIT
    )
    result = await run_match([LocalBot(wrong), LocalBot(PolicyBot(CallingStation()))], settings)
    assert result.forfeited[0]
    assert "SAT_OUT" in {f.reason for f in result.faults}
    assert result.hands_played < 50
    assert result.reason == "too few seats left"
    assert _conserved(result)


class _SilentConnection:
    """A seat that says hello and then never answers a decision."""

    def __init__(self) -> None:
        self._hello_sent = False

    async def send(self, message) -> None:
        return None

    async def receive(self):
        if not self._hello_sent:
            self._hello_sent = True
            return pb.BotMessage(hello=pb.Hello(name="silent", protocol_version=1))
        await trio.sleep_forever()
        raise AssertionError("unreachable")

    async def aclose(self) -> None:
        return None


class _SilentBot:
    name = "silent"

    async def connect(self):
        return _SilentConnection()

    async def aclose(self) -> None:
        return None


def test_r23_timeouts_fall_back_and_use_the_time_bank() -> None:
    """A silent bot times out on every decision: check if free else fold, draw stands pat; the bank drains once."""

    async def main():
        settings = MatchSettings(
            config=GameConfig(), hands=6, seed=8, action_timeout=1.0, time_bank=5.0
        )
        start = trio.current_time()
        result = await run_match([_SilentBot(), LocalBot(PolicyBot(CallingStation()))], settings)
        return result, trio.current_time() - start

    clock = trio.testing.MockClock(autojump_threshold=0)
    result, elapsed = trio.run(main, clock=clock)
    timeouts = [f for f in result.faults if f.reason == "TIMEOUT"]
    assert timeouts, "the silent seat should time out"
    assert {f.applied for f in timeouts} <= {"check", "fold", "stand pat"}
    # the first timeout waits the action clock plus the whole bank, later ones only the clock
    assert elapsed == pytest.approx(6.0 + 1.0 * (len(timeouts) - 1), abs=1e-6)
    assert _conserved(result)


class _NeverConnects:
    name = "ghost"

    async def connect(self):
        raise SeatBrokenError("connection refused")

    async def aclose(self) -> None:
        return None


@pytest.mark.trio
async def test_r25_unreachable_bot_is_recorded_and_sits_out() -> None:
    """A bot that cannot be reached is a DISCONNECTED fault; the others still play."""
    settings = MatchSettings(config=GameConfig(), hands=5, seed=1, reconnect=False)
    bots = [
        _NeverConnects(),
        LocalBot(PolicyBot(RuleBased())),
        LocalBot(PolicyBot(CallingStation())),
    ]
    result = await run_match(bots, settings)
    assert result.sat_out[0]
    assert "connection refused" in result.faults[0].detail
    assert result.hands_played == 5
    assert all(row[0] == 0 for row in result.payoffs)


@pytest.mark.trio
async def test_r25_returning_bot_owes_missed_blinds() -> None:
    """A bot that crashes once sits out, is reconnected, and posts its missed blinds (R22) to return."""
    from arena.engine import BlindKind, BlindPosted

    state = {"crashed": False, "decisions": 0}

    def crash_once(request):
        state["decisions"] += 1
        if state["decisions"] == 3 and not state["crashed"]:
            state["crashed"] = True
            raise RuntimeError("boom")
        kind = pb.ACTION_KIND_DISCARD if request.phase == pb.PHASE_DRAW else pb.ACTION_KIND_CALL
        return pb.Action(decision_id=request.decision_id, kind=kind)

    posts: list[tuple[int, BlindPosted]] = []

    def on_hand(number, hand, seats, names):
        posts.extend(
            (number, e._replace(seat=seats[e.seat]))
            for e in hand.events
            if isinstance(e, BlindPosted)
        )

    class DownForAWhile(LocalBot):
        """Refuses the first two reconnections after the crash, so deals go on without it."""

        refusals = 2

        async def connect(self):
            if state["crashed"] and self.refusals:
                self.refusals -= 1
                raise SeatBrokenError("still restarting")
            return await super().connect()

    settings = MatchSettings(config=GameConfig(), hands=16, seed=6)
    bots = [
        DownForAWhile(ScriptedBot(crash_once, "flaky")),
        LocalBot(PolicyBot(RuleBased())),
        LocalBot(PolicyBot(CallingStation())),
    ]
    result = await run_match(bots, settings, on_hand=on_hand)
    assert state["crashed"]
    assert not result.sat_out[0], "the bot should be back by the end"
    dead = [
        number for number, post in posts if post.seat == 0 and post.kind is BlindKind.DEAD_SMALL
    ]
    assert dead, f"seat 0 should post a dead small blind to come back: {posts}"
    assert _conserved(result)


@pytest.mark.trio
async def test_r28_jackpots_match_carries_dead_pots_and_conserves_chips() -> None:
    """Dead Jackpots deals carry their antes into the next deal; the match's chips still add up."""
    from arena.engine import ForcedBets, Opening

    config = GameConfig(forced_bets=ForcedBets.ANTES, ante=1, opening=Opening.JACKS_OR_BETTER)
    dead_hands = []

    def on_hand(number, hand, seats, names):
        if hand.dead:
            dead_hands.append(number)

    bots = [
        LocalBot(PolicyBot(RuleBased())),
        LocalBot(PolicyBot(CallingStation())),
        LocalBot(PolicyBot(RuleBased())),
    ]
    result = await run_match(bots, MatchSettings(config=config, hands=61, seed=2), on_hand=on_hand)
    assert dead_hands, "some deals should have no opener"
    assert 0 == sum(result.chips_won)
    assert sum(sum(row) for row in result.payoffs) == 0


@pytest.mark.trio
async def test_stop_when_ends_a_duplicate_match_at_a_block_boundary() -> None:
    """An early-stopping rule is asked after whole duplicate blocks and ends the match there."""
    from arena.ratings import ChipSprt

    sprt = ChipSprt(0.0, 500.0, big_blind=2, hands_per_unit=2, min_samples=10)
    seen = [0]

    def stop(result) -> bool:
        rows = result.payoffs[seen[0] :]
        seen[0] = len(result.payoffs)
        sprt.add(sum(row[0] for row in rows))
        return sprt.status != "continue"

    bots = [
        LocalBot(PolicyBot(RuleBased())),
        LocalBot(PolicyBot(RandomPolicy(__import__("random").Random(1)))),
    ]
    settings = MatchSettings(config=GameConfig(), hands=2000, seed=3, duplicate=True)
    result = await run_match(bots, settings, stop_when=stop)
    assert "stopped early" == result.reason
    assert result.hands_played < 2000
    assert 0 == result.hands_played % 2
    assert "accept_h1" == sprt.status
    assert _conserved(result)


@pytest.mark.trio
async def test_r25_reconnecting_does_not_reset_the_fault_count() -> None:
    """A bot that breaks its stream at every decision reaches the fault limit and stays out."""

    def always_crash(request):
        raise RuntimeError("boom")

    settings = MatchSettings(config=GameConfig(), hands=40, seed=2, fault_limit=3)
    bots = [
        LocalBot(ScriptedBot(always_crash, "breaker")),
        LocalBot(PolicyBot(RuleBased())),
        LocalBot(PolicyBot(CallingStation())),
    ]
    result = await run_match(bots, settings)
    mine = [f for f in result.faults if f.seat == 0]
    assert 1 == sum(f.reason == "SAT_OUT" for f in mine)
    assert 3 == sum(f.reason == "DISCONNECTED" and bool(f.decision_id) for f in mine)
    assert result.sat_out[0]
    assert 40 == result.hands_played
    assert _conserved(result)


@pytest.mark.trio
async def test_the_name_given_to_a_seat_stands_over_the_bots_hello() -> None:
    """A bot cannot rename itself (or pass for another) through its Hello; the Hello is kept apart."""
    impostor = ScriptedBot(
        lambda r: pb.Action(
            decision_id=r.decision_id,
            kind=pb.ACTION_KIND_CALL if r.phase != pb.PHASE_DRAW else pb.ACTION_KIND_DISCARD,
        ),
        "random",
    )
    result = await run_match(
        [LocalBot(impostor, name="mine"), LocalBot(PolicyBot(RandomPolicy()))],
        MatchSettings(config=GameConfig(), hands=4, seed=1),
    )
    assert ["mine", "random"] == result.names
    assert "random" == result.hellos[0]["name"]


@pytest.mark.trio
async def test_r24_fault_message_names_the_engine_reason_code() -> None:
    """An illegal amount's Fault carries the engine's code (Fault.code), as the record does."""
    faults: list[pb.Fault] = []

    class Greedy(ScriptedBot):
        def on_fault(self, message):
            faults.append(message)

    greedy = Greedy(
        lambda r: (
            pb.Action(decision_id=r.decision_id, kind=pb.ACTION_KIND_BET_RAISE, amount=10**9)
            if r.phase != pb.PHASE_DRAW
            else pb.Action(decision_id=r.decision_id, kind=pb.ACTION_KIND_DISCARD, cards=["Xx"])
        ),
        "greedy",
    )
    result = await run_match(
        [LocalBot(greedy), LocalBot(PolicyBot(CallingStation()))],
        MatchSettings(config=GameConfig(structure=Structure.NO_LIMIT), hands=10, seed=5),
    )
    codes = {(f.reason, f.code) for f in faults}
    assert (pb.FAULT_REASON_ILLEGAL_ACTION, "amount_too_large") in codes
    assert all(f.code == "" for f in faults if f.reason != pb.FAULT_REASON_ILLEGAL_ACTION)
    assert [f.code for f in faults] == [r.code for r in result.faults]


def _answer_for(request, decision_id: str) -> pb.Action:
    kind = pb.ACTION_KIND_DISCARD if request.phase == pb.PHASE_DRAW else pb.ACTION_KIND_CALL
    return pb.Action(decision_id=decision_id, kind=kind)


@pytest.mark.trio
async def test_r24_ids_never_asked_of_the_seat_are_wrong_not_stale() -> None:
    """An id for a hand that never happened with the number of an earlier decision
    (``99999.N-1``), or for the decision just before (often the opponent's), is
    WRONG_DECISION_ID, never dropped as a stale answer (README: "answers a decision it
    was never asked")."""

    def earlier_number(request) -> str:
        hand, number = request.decision_id.split(".")
        return f"{hand}.{int(number) - 1}"

    other_hand = ScriptedBot(
        lambda r: _answer_for(r, "99999." + earlier_number(r).split(".")[1]), "other-hand"
    )
    previous = ScriptedBot(lambda r: _answer_for(r, earlier_number(r)), "previous")
    result = await run_match(
        [LocalBot(other_hand), LocalBot(previous)],
        MatchSettings(config=GameConfig(), hands=3, seed=2, action_timeout=0.2, time_bank=0.0),
    )
    by_seat = {seat: [f for f in result.faults if f.seat == seat] for seat in range(2)}
    assert by_seat[0] and {"WRONG_DECISION_ID"} == {f.reason for f in by_seat[0]}
    assert all("99999." in f.detail for f in by_seat[0])
    assert 0 == result.stale_actions[0]
    # "previous" answers its own earlier decision at times (a stale drop, then a timeout),
    # but the opponent's decision just before it is a wrong id
    assert "WRONG_DECISION_ID" in {f.reason for f in by_seat[1]}
    assert _conserved(result)
