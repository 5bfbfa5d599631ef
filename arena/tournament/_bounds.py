"""The bounds of every match setting, written once for tournament files and ``arena match``.

A tournament file (:mod:`arena.tournament._config_load`) and the command line
(``arena match``) take the same settings; both check them here, so a value one refuses
the other refuses too, with the same words. Each check returns the value or raises
:class:`BoundError` whose message says what is allowed; the caller adds where the value
came from (``timeouts.time_bank`` or ``--time-bank``).

Why these bounds: clocks go on the wire as ``uint32`` milliseconds (at most 49.7 days),
and a day is already far more than any bot needs; seeds are stored as SQLite's signed
64-bit integers; a stack must pay the forced bets of the first hand (R5).
"""

from __future__ import annotations

import math
import re

from arena.engine import MAX_CHIPS, ForcedBets, GameConfig

MAX_SECONDS = 86_400
"""The longest clock (action, time bank, start-up, Hello): a day, well inside uint32 ms."""

MAX_SEED = (1 << 63) - 1
"""Seeds are 0 .. 2**63 - 1: they are stored in SQLite's signed 64-bit integers."""

MAX_HANDS = 10_000_000
"""The most hands one match may ask for."""

MAX_FAULT_LIMIT = 1_000_000
"""The largest R25 fault limit (0 means no limit)."""

MAX_NAME = 64
"""The longest tournament name (it is a folder name)."""

_SAFE_NAME = re.compile(rf"[A-Za-z0-9_\-][A-Za-z0-9_.\-]{{0,{MAX_NAME - 1}}}")


class BoundError(ValueError):
    """A setting outside its bounds; the message says what is allowed and what was given."""


def check_seconds(value: float, *, allow_zero: bool) -> float:
    """A finite number of seconds, above 0 (or 0 when ``allow_zero``), at most a day."""
    seconds = float(value)
    if not math.isfinite(seconds):
        raise BoundError(f"must be a finite number of seconds, got {value}")
    if seconds < 0 or (seconds == 0 and not allow_zero):
        low = "0 or more" if allow_zero else "above 0"
        raise BoundError(f"must be {low} seconds, got {value}")
    if seconds > MAX_SECONDS:
        raise BoundError(f"must be at most {MAX_SECONDS} seconds (a day), got {value}")
    return seconds


def check_whole(value: int, *, minimum: int, maximum: int) -> int:
    """A whole number from ``minimum`` to ``maximum``."""
    if value < minimum:
        raise BoundError(f"must be at least {minimum}, got {value}")
    if value > maximum:
        raise BoundError(f"must be at most {maximum}, got {value}")
    return value


def check_seed(value: int) -> int:
    """A deck seed from 0 to 2**63 - 1."""
    return check_whole(value, minimum=0, maximum=MAX_SEED)


def check_hands(value: int) -> int:
    """Hands per match: 1 to :data:`MAX_HANDS`."""
    return check_whole(value, minimum=1, maximum=MAX_HANDS)


def check_fault_limit(value: int) -> int:
    """Faults before R25 applies: 0 (no limit) to :data:`MAX_FAULT_LIMIT`."""
    return check_whole(value, minimum=0, maximum=MAX_FAULT_LIMIT)


def check_stack(stack: int, game: GameConfig) -> int:
    """A starting stack that pays the first hand's forced bets and fits the engine's chips."""
    check_whole(stack, minimum=1, maximum=MAX_CHIPS)
    need = game.ante + (game.big_blind if game.forced_bets is ForcedBets.BLINDS else 0)  # type: ignore[operator]  # GameConfig always fills big_blind
    if stack < need:
        raise BoundError(f"must cover the forced bets (at least {need} chips), got {stack}")
    return stack


def check_tournament_name(name: str) -> str:
    """A name that is also a safe folder name under the output folder.

    1 to 64 characters from ``A-Z a-z 0-9 . _ -``, not starting with a dot: no ``..``,
    no ``/``, no hidden folder, no NUL or control character.
    """
    if not _SAFE_NAME.fullmatch(name):
        shown = name[:80].encode("unicode_escape").decode("ascii")
        raise BoundError(
            f"'{shown}' is not a safe folder name: 1-{MAX_NAME} characters from "
            "A-Z a-z 0-9 . _ -, not starting with '.'"
        )
    return name
