"""Engine values <-> protocol messages: game settings, actions and enum names (layer 2).

Wire messages become engine actions only through :func:`action_from_message`, which
turns anything a bot can send into either a well-formed engine action or a
:class:`MessageFault` with a reason code; it never raises anything else. The history
lives in :mod:`arena.protocol._events`, decisions both ways in
:mod:`arena.protocol._decision`, and every dealer message is built in
:mod:`arena.protocol._messages`, from a seat's :class:`~arena.engine.SeatView` where it
carries cards.
"""

from __future__ import annotations

import re
from typing import Any

from arena.engine import (
    CALL,
    CHECK,
    FOLD,
    Action,
    BetRaise,
    CardParseError,
    Discard,
    Fold,
    ForcedBets,
    GameConfig,
    JokerMode,
    Opening,
    ShowdownReveal,
    Structure,
    parse_card,
)
from arena.engine import Call as CallAction
from arena.engine import Check as CheckAction
from arena.protocol._events import cards_text
from arena.protocol._generated import arena_pb2 as pb
from arena.text import escape_untrusted

PROTOCOL_VERSION = 1

MAX_ERROR_CHARS = 1024
"""The most of an Action's ``error`` (after escaping) a BOT_ERROR fault's detail keeps."""

_STRUCTURE = {
    Structure.FIXED_LIMIT: pb.STRUCTURE_FIXED_LIMIT,
    Structure.POT_LIMIT: pb.STRUCTURE_POT_LIMIT,
    Structure.NO_LIMIT: pb.STRUCTURE_NO_LIMIT,
}
_FORCED = {ForcedBets.BLINDS: pb.FORCED_BETS_BLINDS, ForcedBets.ANTES: pb.FORCED_BETS_ANTES}
_OPENING = {Opening.ANY: pb.OPENING_ANY, Opening.JACKS_OR_BETTER: pb.OPENING_JACKS_OR_BETTER}
_JOKER = {
    JokerMode.OFF: pb.JOKER_MODE_OFF,
    JokerMode.BUG: pb.JOKER_MODE_BUG,
    JokerMode.WILD: pb.JOKER_MODE_WILD,
}
_REVEAL = {ShowdownReveal.ALL: pb.SHOWDOWN_REVEAL_ALL, ShowdownReveal.MUCK: pb.SHOWDOWN_REVEAL_MUCK}


def short_name(enum: Any, value: int) -> str:
    """``value``'s name without its enum's prefix: ``TIMEOUT`` for ``FAULT_REASON_TIMEOUT``.

    The prefixes keep C++ and other flat namespaces apart (buf's STANDARD lint); records,
    logs and messages for humans keep the short names they had before the prefixes.
    """
    name = enum.Name(value)
    words = re.sub(r"(?<!^)(?=[A-Z])", "_", enum.DESCRIPTOR.name).upper() + "_"
    return name.removeprefix(words)


def _invert(mapping: dict) -> dict:
    return {value: key for key, value in mapping.items()}


class MessageFault(Exception):
    """A bot message that cannot become an engine action; ``reason`` is a FaultReason value."""

    def __init__(self, reason: pb.FaultReason, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


# --- configuration -----------------------------------------------------------------


def config_to_message(config: GameConfig) -> pb.GameConfig:
    """The game settings as MatchStart carries them."""
    return pb.GameConfig(
        structure=_STRUCTURE[config.structure],
        small_blind=config.small_blind,
        big_blind=config.big_blind,
        small_bet=config.small_bet,
        big_bet=config.big_bet,
        ante=config.ante,
        max_draw=config.max_draw,
        forced_bets=_FORCED[config.forced_bets],
        opening=_OPENING[config.opening],
        joker=_JOKER[config.joker],
        showdown_reveal=_REVEAL[config.showdown_reveal],
        uncapped_heads_up=config.uncapped_heads_up,
        max_bets_per_round=config.max_bets_per_round,
    )


def config_from_message(message: pb.GameConfig) -> GameConfig:
    """The inverse of :func:`config_to_message` (raises ``ConfigError`` on nonsense)."""
    return GameConfig(
        structure=_invert(_STRUCTURE).get(message.structure, Structure.FIXED_LIMIT),
        small_blind=message.small_blind or None,
        big_blind=message.big_blind or None,
        small_bet=message.small_bet or None,
        big_bet=message.big_bet or None,
        ante=message.ante,
        max_draw=message.max_draw or 5,
        forced_bets=_invert(_FORCED).get(message.forced_bets, ForcedBets.BLINDS),
        opening=_invert(_OPENING).get(message.opening, Opening.ANY),
        joker=_invert(_JOKER).get(message.joker, JokerMode.OFF),
        showdown_reveal=_invert(_REVEAL).get(message.showdown_reveal, ShowdownReveal.ALL),
        uncapped_heads_up=message.uncapped_heads_up,
        max_bets_per_round=message.max_bets_per_round or 4,
    )


# --- actions -----------------------------------------------------------------------


def action_from_message(message: pb.Action, expected_decision_id: str) -> Action:
    """Turn a bot's Action into an engine action, or raise :class:`MessageFault`.

    Checks only the form (id, kind, card text); legality is the engine's to judge.
    An Action with ``error`` set is the bot saying it could not decide: a BOT_ERROR
    fault whatever its kind, so the caller plays the default.
    """
    if message.decision_id != expected_decision_id:
        raise MessageFault(
            pb.FAULT_REASON_WRONG_DECISION_ID,
            f"decision_id {message.decision_id[:64]!r} does not answer {expected_decision_id!r}",
        )
    if message.error:  # the bot's strategy failed: it asks for the default (R23)
        raise MessageFault(pb.FAULT_REASON_BOT_ERROR, bot_error_detail(message.error))
    kind = message.kind
    if kind == pb.ACTION_KIND_FOLD:
        return FOLD
    if kind == pb.ACTION_KIND_CHECK:
        return CHECK
    if kind == pb.ACTION_KIND_CALL:
        return CALL
    if kind == pb.ACTION_KIND_BET_RAISE:
        return BetRaise(int(message.amount))
    if kind == pb.ACTION_KIND_DISCARD:
        if len(message.cards) > 5:
            raise MessageFault(
                pb.FAULT_REASON_MALFORMED, f"{len(message.cards)} cards in a discard"
            )
        try:
            return Discard(tuple(parse_card(text) for text in message.cards))
        except CardParseError as error:
            raise MessageFault(pb.FAULT_REASON_MALFORMED, str(error)[:200]) from None
    raise MessageFault(pb.FAULT_REASON_MALFORMED, f"action kind {kind} is not a valid ActionKind")


def bot_error_detail(text: str) -> str:
    """A bot's ``Action.error`` as a fault's detail: one line, escaped, at most 1 KB."""
    detail = escape_untrusted(text[: MAX_ERROR_CHARS * 2], one_line=True)
    return detail if len(detail) <= MAX_ERROR_CHARS else detail[:MAX_ERROR_CHARS] + "…"


def action_to_message(action: Action, decision_id: str) -> pb.Action:
    """An engine action as a bot would send it (for faults' ``applied`` and for SDKs)."""
    if isinstance(action, Fold):
        return pb.Action(decision_id=decision_id, kind=pb.ACTION_KIND_FOLD)
    if isinstance(action, CheckAction):
        return pb.Action(decision_id=decision_id, kind=pb.ACTION_KIND_CHECK)
    if isinstance(action, CallAction):
        return pb.Action(decision_id=decision_id, kind=pb.ACTION_KIND_CALL)
    if isinstance(action, BetRaise):
        return pb.Action(
            decision_id=decision_id, kind=pb.ACTION_KIND_BET_RAISE, amount=action.amount
        )
    if isinstance(action, Discard):
        return pb.Action(
            decision_id=decision_id, kind=pb.ACTION_KIND_DISCARD, cards=cards_text(action.cards)
        )
    raise TypeError(f"not an engine action: {action!r}")
