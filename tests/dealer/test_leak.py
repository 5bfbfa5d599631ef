"""No seat ever receives another seat's card before it is shown (R18, R19)."""

from __future__ import annotations

import pytest

from arena.dealer import MatchSettings, run_match
from arena.dealer._seat import LocalConnection
from arena.engine import (
    CardsDrawn,
    GameConfig,
    HandMucked,
    HandShown,
    HoleCardsDealt,
    ShowdownReveal,
    Structure,
)
from arena.policies import CallingStation, RandomPolicy, RuleBased
from arena.policies import PolicyBot as SeatedPolicy
from arena.protocol import pb
from arena.sdk import Bot


class PolicyBot(SeatedPolicy):
    def __init__(self, policy) -> None:
        # asks for HandStart messages: the test checks them too
        super().__init__(policy.name, policy, wants_hand_start=True)


class RecordingBot:
    """A driver whose connections log every message the dealer sends."""

    def __init__(self, bot: Bot, log: list) -> None:
        self.name = bot.name
        self.bot = bot
        self.log = log

    async def connect(self):
        connection = LocalConnection(self.bot)
        original = connection.send

        async def send(message):
            self.log.append(pb.DealerMessage.FromString(message.SerializeToString()))
            await original(message)

        connection.send = send  # type: ignore[method-assign]
        return connection

    async def aclose(self) -> None:
        return None


def _cards_in(message: pb.DealerMessage) -> set[str]:
    kind = message.WhichOneof("kind")
    body = getattr(message, kind)
    cards: set[str] = set()
    if kind in ("hand_start", "decision"):
        cards.update(body.hole_cards)
    if kind in ("decision", "hand_end"):
        for event in body.history:
            cards.update(event.cards)
    if kind == "hand_end":
        for shown in body.shown:
            cards.update(shown.cards)
    return cards


@pytest.mark.parametrize("reveal", [ShowdownReveal.ALL, ShowdownReveal.MUCK])
@pytest.mark.trio
async def test_r18_r19_no_seat_sees_an_unshown_card(reveal: ShowdownReveal) -> None:
    """Record every message to every seat over many hands; check each card against who may know it."""
    logs: list[list[pb.DealerMessage]] = [[] for _ in range(4)]
    policies = [RandomPolicy(), RuleBased(), CallingStation(), RandomPolicy()]
    drivers = [RecordingBot(PolicyBot(p), logs[i]) for i, p in enumerate(policies)]
    own: dict[int, list[set[str]]] = {}
    shown: dict[int, set[str]] = {}
    mucked = [0]

    def on_hand(number, hand, players, names):
        mine = [set() for _ in range(4)]
        public = set()
        for event in hand.events:
            if isinstance(event, HoleCardsDealt):
                mine[players[event.seat]].update(map(str, event.cards))
            elif isinstance(event, CardsDrawn):
                mine[players[event.seat]].update(map(str, event.drawn))
            elif isinstance(event, HandShown):
                public.update(map(str, event.cards))
            elif isinstance(event, HandMucked):
                mucked[0] += 1
        own[number] = mine
        shown[number] = public

    config = GameConfig(structure=Structure.POT_LIMIT, showdown_reveal=reveal)
    settings = MatchSettings(config=config, hands=300, seed=21)
    await run_match(drivers, settings, on_hand=on_hand)

    checked = 0
    for seat, log in enumerate(logs):
        hand_number = 0
        for message in log:
            kind = message.WhichOneof("kind")
            if kind == "hand_start":
                hand_number = message.hand_start.hand_number
            if kind not in ("hand_start", "decision", "hand_end"):
                continue
            allowed = set(own[hand_number][seat])
            if kind == "hand_end":
                allowed |= shown[hand_number]
            leaked = _cards_in(message) - allowed
            assert not leaked, f"seat {seat} saw {leaked} in hand {hand_number} ({kind})"
            checked += 1
    assert checked > 1000
    if reveal is ShowdownReveal.MUCK:
        # muck mode really hides something: some hands reached showdown unshown
        assert mucked[0] > 0


@pytest.mark.trio
async def test_hand_start_is_sent_only_to_bots_that_ask() -> None:
    """HandStart is opt-in (Hello.wants_hand_start): a bot that does not ask gets none."""

    class Quiet(Bot):
        name = "quiet"

        def decide(self, decision):
            return decision.stand_pat() if decision.is_draw else decision.check_or_call()

    asking: list = []
    quiet: list = []
    drivers = [RecordingBot(PolicyBot(RuleBased()), asking), RecordingBot(Quiet(), quiet)]
    await run_match(drivers, MatchSettings(config=GameConfig(), hands=5, seed=1))
    assert 5 == sum(m.WhichOneof("kind") == "hand_start" for m in asking)
    assert 0 == sum(m.WhichOneof("kind") == "hand_start" for m in quiet)
    assert 5 == sum(m.WhichOneof("kind") == "hand_end" for m in quiet)
