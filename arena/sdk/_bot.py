"""The Python bot SDK: a bot is a class with one ``decide`` method.

The SDK runs the gRPC server (``grpc.aio``, so any number of open streams share one
event loop instead of starving a thread pool), answers the health check, sends the
Hello and turns each DecisionRequest into a :class:`Decision`::

    from arena.sdk import Bot, run

    class AlwaysCall(Bot):
        name = "always-call"

        def decide(self, decision):
            if decision.is_draw:
                return decision.stand_pat()
            return decision.check_or_call()

    if __name__ == "__main__":
        run(AlwaysCall())
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable, Iterable
from typing import Any

from arena import protocol
from arena.engine import (
    CALL,
    CHECK,
    FOLD,
    STAND_PAT,
    Action,
    BetRaise,
    Card,
    Discard,
    Phase,
    SeatView,
    parse_card,
)
from arena.protocol import pb


class Decision:
    """One DecisionRequest with the answers built in.

    ``view`` is the request as an engine :class:`~arena.engine.SeatView` in table seats
    (:func:`arena.protocol.read_decision`); ``hole_cards``, ``legal`` and ``pot`` are
    its fields, so in-process policies play over gRPC unchanged (pass them ``view``).
    The raw message is ``request``.
    """

    __slots__ = ("hole_cards", "legal", "pot", "request", "view")

    def __init__(self, request: pb.DecisionRequest) -> None:
        self.request = request
        self.view: SeatView = protocol.read_decision(request)
        self.hole_cards: tuple[Card, ...] = self.view.hole_cards
        assert self.view.legal is not None
        self.legal = self.view.legal
        self.pot: int = request.pot

    @property
    def is_draw(self) -> bool:
        return self.legal.phase is Phase.DRAW

    def fold(self) -> Action:
        return FOLD

    def check(self) -> Action:
        return CHECK

    def call(self) -> Action:
        return CALL

    def check_or_call(self) -> Action:
        return CALL if self.legal.call_amount > 0 else CHECK

    def raise_to(self, amount: int) -> Action:
        """Bet or raise to ``amount`` (clamped into the legal range)."""
        low, high = self.legal.min_raise_to, self.legal.max_raise_to
        return BetRaise(max(low, min(high, amount)))

    def discard(self, cards: Iterable[Card | str]) -> Action:
        return Discard(tuple(c if isinstance(c, Card) else parse_card(c) for c in cards))

    def stand_pat(self) -> Action:
        return STAND_PAT


class Bot:
    """Subclass and implement :meth:`decide`; the ``on_*`` hooks are optional."""

    name: str = "python-bot"
    version: str = "0.1"

    def decide(self, decision: Decision) -> Action | pb.Action:
        """Return the action for this decision (an engine action or a ``pb.Action``)."""
        raise NotImplementedError

    def on_match_start(self, message: pb.MatchStart) -> None:
        """A new stream (table, seat) starts."""

    def on_hand_start(self, message: pb.HandStart) -> None:
        """Your five cards for a new hand (override it and the SDK asks the dealer for these)."""

    def on_hand_end(self, message: pb.HandEnd) -> None:
        """Shown cards and payoffs."""

    def on_fault(self, message: pb.Fault) -> None:
        """Your last answer was late or illegal; ``message.applied`` was played."""

    def on_match_end(self, message: pb.MatchEnd) -> None:
        """The match on this stream is over."""

    # --- used by the server ----------------------------------------------------

    def hello(self) -> pb.BotMessage:
        """The Hello; asks for HandStart messages only if this class overrides :meth:`on_hand_start`."""
        wants = type(self).on_hand_start is not Bot.on_hand_start
        return protocol.hello(name=self.name, version=self.version, wants_hand_start=wants)

    def answer(self, request: pb.DecisionRequest) -> pb.BotMessage:
        """Run :meth:`decide` and wrap its answer for the wire.

        When ``decide`` raises (or returns something that is no action), the traceback
        goes to stderr and the default is played: check when free, else fold; stand pat
        at the draw (what the dealer plays for a late answer, R23), with ``Action.error``
        saying where (``decide raised IndexError at bot.py:12``: the dealer records a
        BOT_ERROR fault with it). The stream goes on.
        """
        try:
            return protocol.answer(self.decide(Decision(request)), request.decision_id)
        except Exception as error:
            default = _default_action(request)
            summary = _report(self.name, "decide", error, f"played {_DEFAULT_NAMES[default.kind]}")
            default.error = summary[: protocol.MAX_ERROR_CHARS]
            return pb.BotMessage(action=default)

    def handle(self, message: pb.DealerMessage) -> pb.BotMessage | None:
        """React to one dealer message; returns the reply, if one is due.

        An exception in an ``on_*`` hook is printed to stderr with its traceback and
        goes no further: the match goes on.
        """
        kind = message.WhichOneof("kind")
        if kind == "decision":
            return self.answer(message.decision)
        if kind == "match_start":
            self._hook(self.on_match_start, message.match_start)
            return self.hello()
        if kind == "hand_start":
            self._hook(self.on_hand_start, message.hand_start)
        elif kind == "hand_end":
            self._hook(self.on_hand_end, message.hand_end)
        elif kind == "fault":
            self._hook(self.on_fault, message.fault)
        elif kind == "match_end":
            self._hook(self.on_match_end, message.match_end)
        return None

    def _hook(self, hook: Callable[[Any], None], message: object) -> None:
        try:
            hook(message)
        except Exception as error:
            _report(self.name, hook.__name__, error, "the match goes on")


_ARENA_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep

_DEFAULT_NAMES = {
    pb.ACTION_KIND_DISCARD: "stand pat",
    pb.ACTION_KIND_FOLD: "fold",
    pb.ACTION_KIND_CALL: "call",
    pb.ACTION_KIND_CHECK: "check",
}


def _default_action(request: pb.DecisionRequest) -> pb.Action:
    """The dealer's default for ``request`` (R23): check when free, else fold; stand pat."""
    if request.phase == pb.PHASE_DRAW:
        kind = pb.ACTION_KIND_DISCARD
    elif request.legal.call_amount > 0 and request.legal.can_fold:
        kind = pb.ACTION_KIND_FOLD
    elif request.legal.call_amount > 0:
        kind = pb.ACTION_KIND_CALL  # no fold offered: a call is always legal facing a bet
    else:
        kind = pb.ACTION_KIND_CHECK
    return pb.Action(decision_id=request.decision_id, kind=kind)


def _report(bot: str, where: str, error: Exception, outcome: str) -> str:
    """The traceback of ``error`` and one line naming the bot's own file and line, on stderr.

    Returns that line's summary without the bot's name or the outcome
    (``decide raised IndexError at bot.py:12``), for ``Action.error``.
    """
    traceback.print_exception(error, file=sys.stderr)
    frames = traceback.extract_tb(error.__traceback__)
    # the innermost frame of the bot's own code (an engine call that refused its argument
    # raises inside arena/, but the line to fix is the bot's)
    own = [f for f in frames if not f.filename.startswith(_ARENA_DIR)] or frames
    place = f" at {os.path.basename(own[-1].filename)}:{own[-1].lineno}" if own else ""
    summary = f"{where} raised {type(error).__name__}{place}"
    print(f"{bot}: {summary}; {outcome}", file=sys.stderr)
    sys.stderr.flush()
    return summary
