"""Every hook a plugin can implement, in the order a run calls them.

A plugin is any object (usually a module) with functions marked ``@hookimpl`` and
named after a spec below. It may take fewer arguments than the spec names (pluggy
passes only those it asks for), so specs can grow without breaking plugins; an
unknown hook name or argument is an error at start-up (see
:func:`arena.plugins.get_plugin_manager`). Call hooks with keyword arguments only.

Who answers:

* ``firstresult`` hooks have one answer: plugins are asked in turn (the last
  registered first; built-ins are ``trylast``) and the first that does not return
  ``None`` decides: :func:`arena_make_driver`.
* The other hooks are 1:N: every plugin is called. :func:`arena_rating_systems`
  collects lists; the observers (match started, hand finished, match finished,
  tournament finished) return nothing.
* No hook is ``historic``: they report events of one run, and replaying them to a
  plugin registered later would hand it matches it never saw (and keep every hand
  in memory).

Pluggy calls hooks synchronously. The dealer calls the observers between hands, so
an observer must be quick and must never block: append to a list, write a line, or
hand the work to a thread or task of its own. An exception from a hook propagates to
its caller.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import pluggy

# the bot record and the driver context live with the built-in drivers, one layer down
from arena.tournament._drivers import BotSpecLike, DriverContext

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager

    from arena.dealer import BotDriver, MatchResult, MatchSettings
    from arena.engine import Hand
    from arena.ratings import PairResult, Rating

__all__ = [
    "PROJECT",
    "BotSpecLike",
    "DriverContext",
    "RatingSystem",
    "hookimpl",
    "hookspec",
]

PROJECT = "arena"
"""The pluggy project name: markers and the manager must agree on it."""

hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@runtime_checkable
class RatingSystem(Protocol):
    """A way to rate bots from match results (Elo, a Bradley-Terry batch fit, ...).

    ``name`` is how users pick it (``arena ratings --system elo``); ``rate`` takes
    pairwise results (:class:`arena.ratings.PairResult`: two bots, the first one's
    score and a weight, as :func:`arena.ratings.pairwise_results` makes them from a
    match's chips, plus a loss for a bot absent at the end of a match cut short) in
    the order the matches were recorded, and returns a rating per bot name: a number,
    or a :class:`arena.ratings.Rating` with its interval.
    """

    @property
    def name(self) -> str:
        """How users pick it (``"elo"``); a plain attribute satisfies this."""
        ...

    def rate(self, results: Sequence[PairResult]) -> Mapping[str, float | Rating]:
        """Ratings by bot name from ``results``; never mutates them."""
        ...


# --- bots -----------------------------------------------------------------------


@hookspec(firstresult=True)
def arena_make_driver(
    spec: BotSpecLike, context: DriverContext
) -> AbstractAsyncContextManager[BotDriver] | None:
    """Drive the bot named by ``spec``, if this plugin knows its kind.

    Called once per bot before a match or tournament starts (it may be slow: nothing
    is playing yet). Return ``None`` unless ``spec.kind`` is a kind this plugin
    drives; otherwise return an *async context manager* (not yet entered) whose block
    yields a ready :class:`~arena.dealer.BotDriver` and which releases the bot
    (stops its process, closes its channel) on exit. Entering it may raise
    :class:`~arena.dealer.BotStartError`.

    ``firstresult``: the first plugin to return something decides. Built-in drivers
    are ``trylast``, so a third-party plugin may take over a built-in kind.
    """


# --- ratings --------------------------------------------------------------------


@hookspec
def arena_rating_systems() -> list[RatingSystem]:  # type: ignore[empty-body]  # a spec: pluggy calls the implementations, never this body
    """The rating systems this plugin provides (an empty list if none).

    Called by ``arena ratings --system NAME``, which hands the system of that name
    every stored match of each game type (see :class:`RatingSystem`) and prints its
    ratings. 1:N: every plugin adds its own; when two provide the same ``name``, the
    one called first wins (third-party plugins are called before the built-in Elo and
    batch fit, so they may replace them). The leaderboard and the live Elo a
    tournament stores are arena's own and do not go through this hook.
    """


# --- match ----------------------------------------------------------------------


@hookspec
def arena_match_started(match_id: str, names: Sequence[str], settings: MatchSettings) -> None:
    """A match is about to deal its first hand.

    ``match_id``: the match's id (as in its records); ``names``: the bots' names by
    seat; ``settings``: the :class:`~arena.dealer.MatchSettings` it plays under.
    Return value ignored.
    """


@hookspec
def arena_hand_finished(
    match_id: str, hand_number: int, hand: Hand, seats: Sequence[int], names: Sequence[str]
) -> None:
    """A hand of match ``match_id`` is over and its chips are counted.

    Called by the dealer between hands, so it must be quick and never block.
    ``hand_number`` counts from 1; ``hand`` is the finished engine
    :class:`~arena.engine.Hand` (read it, never change it); ``seats[i]`` is the table
    seat of the hand's player ``i`` and ``names[i]`` its name (seats sitting out are
    not in the hand). Return value ignored.
    """


@hookspec
def arena_match_finished(match_id: str, result: MatchResult) -> None:
    """Match ``match_id`` is over (every hand played, or it stopped early).

    ``result``: the :class:`~arena.dealer.MatchResult` (chips per seat and per hand,
    faults, why it ended). Return value ignored.
    """


# --- tournament -----------------------------------------------------------------


@hookspec
def arena_tournament_finished(name: str, standings: Sequence[Any]) -> None:
    """Tournament ``name`` has played its last match.

    ``standings``: the final standings as :mod:`arena.tournament` builds them, best
    first. Return value ignored.
    """
