"""Errors named by whose fault they are (h11 style).

:class:`IllegalActionError` is the *player's* fault: the action is refused, the hand is
unchanged, and the ``reason`` code tells the dealer what to record (R24).
:class:`ConfigError` is the *user's* fault: a setting is wrong and the message names it.
:class:`EngineInvariantError` "should never happen": a bug, the table must stop.
"""

from __future__ import annotations

from enum import StrEnum


class Reason(StrEnum):
    """Why an action was refused; stable codes that the protocol and logs carry."""

    HAND_OVER = "hand_over"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"
    UNKNOWN_ACTION = "unknown_action"
    CANNOT_CHECK = "cannot_check"
    CANNOT_FOLD = "cannot_fold"
    CANNOT_RAISE = "cannot_raise"
    RAISE_CAPPED = "raise_capped"
    AMOUNT_TOO_SMALL = "amount_too_small"
    AMOUNT_TOO_LARGE = "amount_too_large"
    NOT_QUALIFIED_TO_OPEN = "not_qualified_to_open"
    CARD_NOT_HELD = "card_not_held"
    DUPLICATE_CARD = "duplicate_card"
    TOO_MANY_DISCARDS = "too_many_discards"


class IllegalActionError(ValueError):
    """An action that is not legal now; nothing was applied (R24)."""

    def __init__(self, reason: Reason, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class ConfigError(ValueError):
    """A game or table setting that cannot work; the message names the setting."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"{key}: {message}")
        self.key = key


class EngineInvariantError(AssertionError):
    """The engine broke one of its own invariants (e.g. chips not conserved): a bug."""
