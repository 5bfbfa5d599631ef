"""Matches a bot could not start: recorded as forfeits that ``resume`` plays again.

A league of 200 student bots must go on when one of them cannot start (a missing
package, a crash at import). Its matches are recorded with ``reason =``
:data:`~arena.store._schema.NOT_STARTED`: no hands, the missing bot's seat
``forfeited``, so the leaderboard's fit counts a loss for it (as for a bot absent at
the end of a cut-short match) and it cannot rank above the bots that play. Live Elo
is left alone: it follows played matches only, and a forfeit may yet be replaced.

"Recorded" then means "has a placeholder": the tournament stays ``running``, and
``arena tournament resume`` starts the bot again and plays each such match, whose
result replaces the forfeit in one transaction (:meth:`Store.record_match`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.store._schema import NOT_STARTED, SeatResult
from arena.store._store import Store
from arena.text import escape_untrusted
from arena.tournament._config import TournamentConfig

TAIL_CHARS = 300
"""How much of a start-up error (often a bot's stderr) a note shows."""


def printable(text: str) -> str:
    """``text`` on one line with every control character escaped (it may be bot output)."""
    return escape_untrusted(text, one_line=True)


def error_tail(error: BaseException) -> str:
    """The end of a start-up error, printable; the end is where a traceback says what broke."""
    text = printable(str(error))
    return text if len(text) <= TAIL_CHARS else "..." + text[-TAIL_CHARS:]


def start_note(name: str, tail: str, matches: int, source: str) -> str:
    """The one note printed for a bot that did not start."""
    return (
        f"bot {name!r} did not start: {tail}; its {matches} match(es) are recorded as "
        f"'{NOT_STARTED}' (a forfeit, lost in the standings); "
        f"`arena tournament resume {source}` tries it again"
    )


def record_not_started(
    store: Store,
    tournament_id: int,
    config: TournamentConfig,
    match: Any,
    missing: Mapping[str, str],
    *,
    game_type: str,
) -> None:
    """Commit ``match`` as a forfeit by the seats in ``missing`` (name -> error tail)."""
    seats = [
        SeatResult(bot=name, seat=i, chips=0, hands=0, forfeited=name in missing)
        for i, name in enumerate(match.seats)
    ]
    summary = {
        "match_id": f"{config.name}/{match.key}",
        "seed": match.seed,
        "hands_played": 0,
        "reason": NOT_STARTED,
        "not_started": {name: missing[name] for name in match.seats if name in missing},
        "seats": [
            {"seat": s.seat, "name": s.bot, "chips_won": 0, "forfeited": s.forfeited} for s in seats
        ],
    }
    store.record_match(
        tournament_id,
        match.key,
        game_type=game_type,
        big_blind=config.game.big_blind,  # type: ignore[arg-type]  # GameConfig always fills big_blind
        duplicate_block=len(seats) if match.duplicate else 1,
        result_summary=summary,
        seats=seats,
        records_dir=str(config.output / config.name / match.key),
    )
