"""Errors named by whose fault they are: the file's (format) or the hand's (replay)."""

from __future__ import annotations

from arena.text import escape_untrusted as printable  # names come from the file


class PhhError(ValueError):
    """Something is wrong with a PHH hand history; the message names where.

    ``source`` is the file name (or ``"<string>"``), ``hand`` the hand's name or number
    (None when the whole file is at fault), ``action`` the action line and
    ``action_index`` its 1-based position in ``actions`` when one line is at fault.
    """

    def __init__(
        self,
        problem: str,
        *,
        source: str = "<string>",
        hand: str | None = None,
        action: str | None = None,
        action_index: int | None = None,
    ) -> None:
        self.problem = problem
        self.source = source
        self.hand = hand
        self.action = action
        self.action_index = action_index
        where = [printable(source)]
        if hand is not None:
            where.append(f"hand {printable(hand)}")
        if action is not None:
            where.append(f"action {action_index} {action!r}")
        super().__init__(f"{': '.join(where)}: {problem}")


class PhhFormatError(PhhError):
    """The file cannot be read as a Five Card Draw PHH file: bad TOML, a missing or
    malformed field, an unknown variant, an action line that does not parse."""


class ReplayError(PhhError):
    """The file reads well but the hand cannot be replayed under the arena's rules: an
    action that is not legal, cards that cannot have been dealt, unknown cards, a hand
    that does not end, or ``finishing_stacks`` that differ from the replay's."""
