"""The scenarios of ``arena check-bot``, as a library: one bot driven through every kind
of decision (limits, seat counts, short stacks, antes, a joker, an unearned Fault), each
against a fresh process of the bot, and what it got wrong.

``arena check-bot`` prints them; the ladder's gate (``arena.ladder``) runs them on every
submitted version before it may play.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from arena import protocol
from arena.dealer import BotDriver, MatchSettings, run_match
from arena.engine import ForcedBets, GameConfig, JokerMode, Opening, ShowdownReveal, Structure
from arena.protocol import pb
from arena.tournament._bots import make_bot
from arena.tournament._drivers import DriverContext, open_builtin_bot


@dataclass(frozen=True)
class Scenario:
    """One situation a bot must handle."""

    name: str
    config: GameConfig
    opponents: tuple[str, ...] = ("calling-station",)
    stack: int = 200
    hands: int = 12
    inject_fault: bool = False


SCENARIOS: tuple[Scenario, ...] = (
    Scenario("fixed limit, heads-up (draw, showdown, hand end)", GameConfig()),
    Scenario(
        "pot limit, three seats",
        GameConfig(structure=Structure.POT_LIMIT),
        ("random", "calling-station"),
    ),
    Scenario(
        "no limit, short stacks (all-ins, side pots)",
        GameConfig(structure=Structure.NO_LIMIT),
        ("random", "random"),
        stack=9,
        hands=20,
    ),
    Scenario(
        "antes, jacks or better to open (dead hands)",
        GameConfig(forced_bets=ForcedBets.ANTES, ante=1, opening=Opening.JACKS_OR_BETTER),
        ("rule-based", "calling-station"),
    ),
    Scenario(
        "wild joker, draw at most 3, muck at showdown",
        GameConfig(joker=JokerMode.WILD, max_draw=3, showdown_reveal=ShowdownReveal.MUCK),
    ),
    Scenario(
        "a Fault message arrives before a decision",
        GameConfig(structure=Structure.NO_LIMIT),
        hands=4,
        inject_fault=True,
    ),
)


@dataclass
class Outcome:
    scenario: Scenario
    hands: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return not self.problems


class _FaultInjectingDriver:
    """Wraps a driver so the first decision is preceded by a Fault the bot did not earn."""

    def __init__(self, inner: BotDriver) -> None:
        self.inner = inner
        self.name = inner.name

    async def connect(self):
        connection = await self.inner.connect()
        original = connection.send
        injected = False

        async def send(message: pb.DealerMessage) -> None:
            nonlocal injected
            if not injected and message.WhichOneof("kind") == "decision":
                injected = True
                await original(
                    protocol.fault(
                        decision_id="check-bot-0",
                        reason=pb.FAULT_REASON_TIMEOUT,
                        detail="check-bot: a made-up fault; keep playing",
                        applied=pb.Action(decision_id="check-bot-0", kind=pb.ACTION_KIND_CHECK),
                        faults_so_far=1,
                        fault_limit=0,
                    )
                )
            await original(message)

        connection.send = send
        return connection

    async def aclose(self) -> None:
        await self.inner.aclose()


OpenBot = Callable[[int], contextlib.AbstractAsyncContextManager[BotDriver]]
"""Opens the bot under test for scenario ``n`` (a fresh process for a launched bot)."""


async def run_checks(
    open_bot: OpenBot,
    *,
    action_timeout: float,
    seed: int,
    on_outcome: Callable[[int, Outcome], None] | None = None,
) -> list[Outcome]:
    """Play every scenario with the bot ``open_bot`` opens afresh for each, in seat 0, so
    that no scenario fails for a reason of the one before (issue 21 item 2); collect what
    went wrong, telling ``on_outcome`` of each as it ends."""
    outcomes = []
    for number, scenario in enumerate(SCENARIOS):
        async with open_bot(number) as driver:
            outcome = await _run_scenario(driver, number, scenario, action_timeout, seed)
        outcomes.append(outcome)
        if on_outcome is not None:
            on_outcome(number, outcome)
    return outcomes


async def _run_scenario(
    driver: BotDriver, number: int, scenario: Scenario, action_timeout: float, seed: int
) -> Outcome:
    outcome = Outcome(scenario)
    tested: BotDriver = _FaultInjectingDriver(driver) if scenario.inject_fault else driver
    settings = MatchSettings(
        config=scenario.config,
        hands=scenario.hands,
        starting_stack=scenario.stack,
        seed=seed + number,
        action_timeout=action_timeout,
        reconnect=False,
        match_id=f"check-bot-{number + 1}",
    )
    async with contextlib.AsyncExitStack() as stack:
        opponents = [
            await stack.enter_async_context(
                open_builtin_bot(
                    make_bot(f"{name}-{i + 1}", "builtin", name), DriverContext(seed=seed + i)
                )
            )
            for i, name in enumerate(scenario.opponents)
        ]
        result = await run_match([tested, *opponents], settings)
    outcome.hands = result.hands_played
    # The Hello is judged by the dealer's own check (dealer/_handshake.check_hello: a
    # protocol_version of 0 is taken as 1): one it refused is a fault on record below,
    # and a Hello in the result is one it accepted. No second, stricter check here.
    reasons = Counter(f.reason for f in result.faults if f.seat == 0)
    if result.hellos[0] is None and not reasons:
        outcome.problems.append("never said hello (the first message on a stream must be Hello)")
    for reason, count in reasons.items():
        example = next(f for f in result.faults if f.seat == 0 and f.reason == reason)
        outcome.problems.append(f"{count} x {reason}: {example.detail}")
    if result.sat_out[0] and not reasons:
        outcome.problems.append("was sat out")
    return outcome
