"""What a tournament shows while it plays: the leaderboard's refits and the live page's feed.

The live page is any object with :class:`LivePage`'s four methods (``arena.web.LiveHub``
is one): this layer feeds it without importing the web views, so a test or a notebook
can pass its own.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

import trio

from arena.store._store import Store
from arena.tournament._config import TournamentConfig
from arena.tournament._standings import (
    Standings,
    StandingsRefresher,
    compute_standings,
    game_type_of,
    open_reader,
)


class LivePage(Protocol):
    """What the live page is fed (match id = table id); each call returns at once."""

    def match_started(self, table_id: str, names: Sequence[str]) -> None: ...

    def hand_finished(
        self, table_id: str, number: int, hand: Any, seats: Any, names: Sequence[str]
    ) -> None: ...

    def match_finished(self, table_id: str, result: Iterable[dict[str, Any]] = ()) -> None: ...

    def standings(self, rows: Iterable[Any]) -> None: ...


def live_standings(config: TournamentConfig) -> StandingsRefresher:
    """This tournament's leaderboard, refitted on a worker thread with its own read
    connection (the dealer never waits for a fit)."""
    game_type = game_type_of(config.game)

    def compute(reader: Store) -> Standings:
        return compute_standings(
            reader,
            game_type,
            tournament=config.name,
            anchor=config.ratings.anchor,
            anchor_rating=config.ratings.anchor_rating,
        )

    return StandingsRefresher(compute, lambda: open_reader(config.database))


def with_page(
    observers: Mapping[str, Callable[..., Any]], page: LivePage | None
) -> dict[str, Callable[..., Any]]:
    """The runner's ``on_*`` callbacks, each also feeding ``page`` (None: unchanged)."""
    if page is None:
        return dict(observers)
    plugin_started = observers.get("on_match_started")
    plugin_hand = observers.get("on_hand")
    plugin_finished = observers.get("on_match_finished")

    def on_match_started(match_id: str, names: Any, settings: Any) -> None:
        page.match_started(match_id, names)
        if plugin_started is not None:
            plugin_started(match_id, names, settings)

    def on_hand(match_id: str, number: int, hand: Any, seats: Any, names: Any) -> None:
        page.hand_finished(match_id, number, hand, seats, names)
        if plugin_hand is not None:
            plugin_hand(match_id, number, hand, seats, names)

    def on_match_finished(match_id: str, result: Any) -> None:
        rows = [
            {"name": name, "chips_won": won}
            for name, won in zip(result.names, result.chips_won, strict=False)
        ]
        page.match_finished(match_id, rows)
        if plugin_finished is not None:
            plugin_finished(match_id, result)

    return dict(observers) | {
        "on_match_started": on_match_started,
        "on_hand": on_hand,
        "on_match_finished": on_match_finished,
    }


async def follow_standings(
    page: LivePage, latest: Callable[[], Any], *, every: float = 1.0
) -> None:
    """Publish each new leaderboard the refresher's thread computes (read, never waited for)."""
    while True:
        standings = latest()
        if standings is not None:
            page.standings(standings.rows)  # the hub skips one it already sent
        await trio.sleep(every)
