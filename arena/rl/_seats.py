"""The other seats of a single-agent environment: built-in policies or any SDK ``Bot``.

A policy (a name from :data:`arena.policies.BUILT_IN` or any object with
``decide(view)``) is asked with the engine's view of its seat, as in-process policies
always are. An object with ``handle(message)`` (an SDK :class:`~arena.sdk.Bot`, a
:class:`~arena.policies.PolicyBot`) gets the dealer's own messages built by
:mod:`arena.protocol` (MatchStart, HandStart when its Hello asks, a DecisionRequest per
decision, HandEnd), so it reads each decision through the same
:func:`~arena.protocol.read_decision` view as over gRPC. An answer that is missing,
malformed or illegal is played as the dealer plays it: R23/R24's default.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

from arena import protocol
from arena.engine import Action, GameConfig
from arena.policies import BUILT_IN, MonteCarloPolicy, Policy, make_policy
from arena.rl._game import DrawGame


class Seat(Protocol):
    """One seat the environment plays itself."""

    def start(self, game: DrawGame, seat: int, seed: int) -> None:
        """A session starts (a reset with a seed)."""

    def hand_started(self, game: DrawGame, seat: int) -> None:
        """A new hand was dealt."""

    def decide(self, game: DrawGame, seat: int) -> Action | None:
        """The seat's action (``None``: play the default, R23/R24)."""

    def hand_over(self, game: DrawGame, seat: int) -> None:
        """The hand is finished (payoffs known)."""


class PolicySeat:
    """An in-process policy, asked with the engine's view of its seat (events included)."""

    def __init__(self, policy: Policy) -> None:
        self.policy = policy

    def start(self, game: DrawGame, seat: int, seed: int) -> None:
        if hasattr(self.policy, "rng"):
            self.policy.rng = random.Random(seed)

    def hand_started(self, game: DrawGame, seat: int) -> None:
        pass

    def decide(self, game: DrawGame, seat: int) -> Action | None:
        return self.policy.decide(game.view(seat, history=True))

    def hand_over(self, game: DrawGame, seat: int) -> None:
        pass


class BotSeat:
    """Anything with ``handle(DealerMessage) -> BotMessage | None``, fed the dealer's messages."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.wants_hand_start = False
        self._decisions = 0

    def start(self, game: DrawGame, seat: int, seed: int) -> None:
        names = _names(game)
        message = protocol.match_start(
            match_id=game.table_name,
            table_id="0",
            seat=seat,
            names=names,
            config=game.config,
            action_timeout=1.0,
            time_bank=0.0,
            hands=0,
            starting_stack=game.stack,
            seat_seed=seed,
        )
        reply = self.bot.handle(message)
        hello = getattr(reply, "hello", None)
        self.wants_hand_start = bool(hello is not None and hello.wants_hand_start)

    def hand_started(self, game: DrawGame, seat: int) -> None:
        if not self.wants_hand_start:
            return
        hand = game.hand
        message = protocol.hand_start(
            game.view(seat),
            hand_id=game.info()["hand_id"],
            hand_number=game.hand_number,
            button=hand.button,
            starting_stacks=hand.starting_stacks,
            seat_map=list(range(hand.n)),
            seats=hand.n,
        )
        self.bot.handle(message)

    def decide(self, game: DrawGame, seat: int) -> Action | None:
        self._decisions += 1
        hand_id = game.info()["hand_id"]
        decision_id = f"{hand_id}/{self._decisions}"
        message = protocol.decision(
            game.view(seat, history=True),
            decision_id=decision_id,
            hand_id=hand_id,
            hand_number=game.hand_number,
            names=_names(game),
            time_left_ms=1000,
            time_bank_ms=0,
        )
        reply = self.bot.handle(message)
        if reply is None or reply.WhichOneof("kind") != "action":
            return None
        try:
            action = protocol.action_from_message(reply.action, decision_id)
        except protocol.MessageFault:
            return None
        return action if game.hand.can_apply(action) else None

    def hand_over(self, game: DrawGame, seat: int) -> None:
        hand = game.hand
        view = game.view(seat, history=True)
        message = protocol.hand_end(
            view,
            hand_id=game.info()["hand_id"],
            payoffs=list(hand.payoffs or [0] * hand.n),
            seat_map=list(range(hand.n)),
            seats=hand.n,
            history=protocol.public_history(view.events),
        )
        self.bot.handle(message)


def _names(game: DrawGame) -> list[str]:
    return [f"player_{i}" for i in range(game.players)]


def seat_for(opponent: Any, config: GameConfig | None = None) -> Seat:
    """A :class:`Seat` for a built-in policy name, a policy object or a bot object.

    A built-in named here is told the table's joker and draw limit (``config``), as the
    Monte Carlo policy needs to deal the unseen cards right.
    """
    if isinstance(opponent, str):
        if opponent not in BUILT_IN:
            known = ", ".join(sorted(BUILT_IN))
            raise ValueError(f"unknown built-in policy {opponent!r} (known: {known})")
        policy = make_policy(opponent)
        if isinstance(policy, MonteCarloPolicy) and config is not None:
            policy.joker, policy.max_draw = config.joker, config.max_draw
        return PolicySeat(policy)
    if callable(getattr(opponent, "handle", None)):
        return BotSeat(opponent)
    if callable(getattr(opponent, "decide", None)):
        return PolicySeat(opponent)
    raise TypeError(
        f"an opponent is a built-in policy name, a policy (decide(view)) or a bot "
        f"(handle(message)); got {type(opponent).__name__}"
    )
