"""The CPU clock's wall budget (issue 21 item 1): a launched bot that sleeps, blocks or
is stopped cannot stretch a match far. Each decision's wall time past the action timeout,
less the CPU the bot used in it, comes off a per-match budget; the decision that would
overspend it times out ("wall budget: ...") and the seat sits out the rest of the match.

The fake driver of ``test_clock`` burns CPU on Trio's clock, so MockClock drives both
clocks: the facts asserted are counts and fault texts, never a timing.
"""

from __future__ import annotations

import trio
import trio.testing
from test_clock import CpuBot  # the fake CPU-burning driver, shared

from arena.dealer import WALL_BUDGET, LocalBot, MatchSettings, run_match
from arena.dealer._clock import backstop
from arena.engine import GameConfig
from arena.policies import CallingStation, PolicyBot


def _play(driver, *, hands: int = 20, action: float = 2.0, **settings):
    async def main():
        match = MatchSettings(
            config=GameConfig(), hands=hands, seed=5, action_timeout=action, **settings
        )
        other = LocalBot(PolicyBot("calling", CallingStation()))
        return await run_match([driver, other], match)

    return trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))


def test_issue21_item1_a_sleeper_is_sat_out_on_its_wall_budget() -> None:
    """3 s of sleep per decision against 2 s: a few decisions, then a TIMEOUT naming the
    wall budget and the seat out for the rest of the match (not 20 hands of 3 s each)."""
    sleeper = CpuBot(rate=0.0, answer_after=3.0)
    result = _play(sleeper)
    mine = [f for f in result.faults if f.seat == 0]
    assert [f.reason for f in mine] == ["TIMEOUT", "SAT_OUT"]
    assert mine[0].detail.startswith("wall budget: "), mine[0].detail
    assert f"{WALL_BUDGET:.1f} s per match" in mine[0].detail
    assert mine[1].detail.startswith("wall budget spent")
    assert result.sat_out[0]
    assert len(sleeper.requests) <= 1 + int(WALL_BUDGET)
    assert result.hands_played < 20


def test_issue21_item1_cpu_the_bot_used_is_not_charged_to_the_wall_budget() -> None:
    """A bot that computes (0.6 of a core) for 1.5 s against a 1 s clock, on a busy
    machine: its overrun is CPU it used, so even a zero wall budget never sits it out."""
    thinker = CpuBot(rate=0.6, answer_after=1.5)
    result = _play(thinker, hands=4, action=1.0, wall_budget=0.0)
    assert [] == [f for f in result.faults if f.seat == 0]
    assert not result.sat_out[0]


def test_issue21_item1_the_budget_is_per_match_and_configurable() -> None:
    """A budget of a day lets the sleeper play every hand (faultless: it answers inside
    the backstop), the organiser's choice for a crowded machine."""
    sleeper = CpuBot(rate=0.0, answer_after=3.0)
    result = _play(sleeper, hands=2, wall_budget=86_400.0)
    assert [] == [f for f in result.faults if f.seat == 0]
    assert 2 == result.hands_played


def test_issue21_item1_the_backstop_is_tight() -> None:
    """The wall-clock backstop is twice the allowed time (at least one second more): a
    stopped bot costs 4 s at a 2 s clock, not 10 s."""
    assert backstop(2.0) == 4.0
    assert backstop(0.5) == 1.5


class _HurriedSleeper(CpuBot):
    """A CpuBot that records whether the dealer asked it to stop without grace."""

    hurried = False

    def stop_without_grace(self) -> None:
        self.hurried = True


def test_issue21_item1_a_seat_out_of_wall_time_is_not_asked_again_in_its_hand() -> None:
    """R25: a seat sat out mid-hand plays the deal out on defaults. Once out of wall time
    it is not asked again (each ask would cost the action clock again: a 3 s sleeper in a
    league cost 5 TIMEOUTs a match), and a launched bot is told to stop without grace."""
    sleeper = _HurriedSleeper(rate=0.0, answer_after=3.0)
    result = _play(sleeper)
    timeout, sat_out = (f for f in result.faults if f.seat == 0)
    assert (timeout.reason, sat_out.reason) == ("TIMEOUT", "SAT_OUT")
    assert sleeper.requests[-1].decision_id == timeout.decision_id  # nothing asked after
    assert sleeper.hurried


def test_issue21_item1_out_of_wall_time_at_one_rotation_is_out_at_every_rotation() -> None:
    """Duplicate: the bot whose wall budget ran out at table 1 sits out of table 2 from its
    next hand too (one budget story per match: its other instance would sleep as long)."""
    from arena.dealer import run_duplicate_match

    slow, quick = CpuBot(rate=0.0, answer_after=3.0), CpuBot(rate=0.0, answer_after=0.1)

    async def main():
        settings = MatchSettings(
            config=GameConfig(), hands=20, seed=5, action_timeout=2.0, duplicate=True
        )
        tables = [
            [slow, LocalBot(PolicyBot("calling", CallingStation()))],
            [quick, LocalBot(PolicyBot("calling", CallingStation()))],
        ]
        return await run_duplicate_match(tables, settings)

    result = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    mine = [f for f in result.faults if f.seat == 0]
    details = [f.detail for f in mine if f.reason == "SAT_OUT"]
    assert any(d.startswith("wall budget spent (") for d in details), details
    assert any(d.startswith("wall budget spent at another rotation") for d in details), details
    assert [f.reason for f in mine].count("TIMEOUT") == 1  # the quick instance never timed out
    assert result.sat_out[0]
