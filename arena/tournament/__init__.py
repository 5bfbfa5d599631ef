"""Tournaments: configuration, formats, scheduling, standings, and the runner that
records each match in :mod:`arena.store` (which it re-exports for older imports).

It may import ``dealer``, ``engine``, ``policies``, ``protocol`` (check-bot's scenarios),
``ratings``, ``stats``, ``store`` and ``text``; never the executors, the server, the web views or the command line.

The names below load on first use (PEP 562): the command line checks an option against
:mod:`arena.tournament._bounds` without importing the dealer and gRPC behind the rest.
The ``TYPE_CHECKING`` block names the same things for readers and the type checker
(``tests/cli/test_fast_cli.py`` checks the two agree)."""

import importlib as _importlib
from typing import TYPE_CHECKING as _TYPE_CHECKING

if _TYPE_CHECKING:
    from arena.store._schema import NOT_STARTED as NOT_STARTED
    from arena.store._schema import AlreadyRecorded as AlreadyRecorded
    from arena.store._schema import StoreError as StoreError
    from arena.store._store import Store as Store
    from arena.tournament._bots import BotSpec as BotSpec
    from arena.tournament._bots import BotSpecError as BotSpecError
    from arena.tournament._bots import make_bot as make_bot
    from arena.tournament._bots import parse_bot_text as parse_bot_text
    from arena.tournament._config import BotEntry as BotEntry
    from arena.tournament._config import Format as Format
    from arena.tournament._config import Ratings as Ratings
    from arena.tournament._config import Timeouts as Timeouts
    from arena.tournament._config import TournamentConfig as TournamentConfig
    from arena.tournament._config import TournamentConfigError as TournamentConfigError
    from arena.tournament._config_load import load_tournament as load_tournament
    from arena.tournament._config_load import parse_tournament as parse_tournament
    from arena.tournament._dispatch import LeasableDriver as LeasableDriver
    from arena.tournament._drivers import DriverContext as DriverContext
    from arena.tournament._drivers import NoDriverError as NoDriverError
    from arena.tournament._drivers import open_builtin_bot as open_builtin_bot
    from arena.tournament._errors import TournamentError as TournamentError
    from arena.tournament._executor import Executor as Executor
    from arena.tournament._executor import Job as Job
    from arena.tournament._executor import MatchOutcome as MatchOutcome
    from arena.tournament._executor import MatchSpec as MatchSpec
    from arena.tournament._executor import match_spec as match_spec
    from arena.tournament._folder import MANIFEST as MANIFEST
    from arena.tournament._folder import BuildError as BuildError
    from arena.tournament._folder import Manifest as Manifest
    from arena.tournament._folder import ManifestError as ManifestError
    from arena.tournament._folder import build_folder as build_folder
    from arena.tournament._folder import load_manifest as load_manifest
    from arena.tournament._formats import ScheduleStats as ScheduleStats
    from arena.tournament._formats import build_schedule as build_schedule
    from arena.tournament._formats import schedule_statistics as schedule_statistics
    from arena.tournament._inprocess import InProcessExecutor as InProcessExecutor
    from arena.tournament._live import LivePage as LivePage
    from arena.tournament._play import play_match as play_match
    from arena.tournament._runner import Progress as Progress
    from arena.tournament._runner import run_tournament as run_tournament
    from arena.tournament._scheduled import ScheduledMatch as ScheduledMatch
    from arena.tournament._seat_results import seat_results as seat_results
    from arena.tournament._session import RemoteSeats as RemoteSeats
    from arena.tournament._session import Session as Session
    from arena.tournament._session import SessionResult as SessionResult
    from arena.tournament._standings import Standing as Standing
    from arena.tournament._standings import Standings as Standings
    from arena.tournament._standings import compute_standings as compute_standings
    from arena.tournament._standings import game_type_of as game_type_of

_EXPORTS: dict[str, str] = {
    "NOT_STARTED": "arena.store._schema",
    "AlreadyRecorded": "arena.store._schema",
    "StoreError": "arena.store._schema",
    "Store": "arena.store._store",
    "BotSpec": "arena.tournament._bots",
    "BotSpecError": "arena.tournament._bots",
    "make_bot": "arena.tournament._bots",
    "parse_bot_text": "arena.tournament._bots",
    "BotEntry": "arena.tournament._config",
    "Format": "arena.tournament._config",
    "Ratings": "arena.tournament._config",
    "Timeouts": "arena.tournament._config",
    "TournamentConfig": "arena.tournament._config",
    "TournamentConfigError": "arena.tournament._config",
    "load_tournament": "arena.tournament._config_load",
    "parse_tournament": "arena.tournament._config_load",
    "LeasableDriver": "arena.tournament._dispatch",
    "DriverContext": "arena.tournament._drivers",
    "NoDriverError": "arena.tournament._drivers",
    "open_builtin_bot": "arena.tournament._drivers",
    "TournamentError": "arena.tournament._errors",
    "Executor": "arena.tournament._executor",
    "Job": "arena.tournament._executor",
    "MatchOutcome": "arena.tournament._executor",
    "MatchSpec": "arena.tournament._executor",
    "match_spec": "arena.tournament._executor",
    "MANIFEST": "arena.tournament._folder",
    "BuildError": "arena.tournament._folder",
    "Manifest": "arena.tournament._folder",
    "ManifestError": "arena.tournament._folder",
    "build_folder": "arena.tournament._folder",
    "load_manifest": "arena.tournament._folder",
    "ScheduleStats": "arena.tournament._formats",
    "build_schedule": "arena.tournament._formats",
    "schedule_statistics": "arena.tournament._formats",
    "InProcessExecutor": "arena.tournament._inprocess",
    "LivePage": "arena.tournament._live",
    "play_match": "arena.tournament._play",
    "Progress": "arena.tournament._runner",
    "run_tournament": "arena.tournament._runner",
    "ScheduledMatch": "arena.tournament._scheduled",
    "seat_results": "arena.tournament._seat_results",
    "RemoteSeats": "arena.tournament._session",
    "Session": "arena.tournament._session",
    "SessionResult": "arena.tournament._session",
    "Standing": "arena.tournament._standings",
    "Standings": "arena.tournament._standings",
    "compute_standings": "arena.tournament._standings",
    "game_type_of": "arena.tournament._standings",
}
"""Each public name and the module that defines it."""


def __getattr__(name: str) -> object:
    """Import a public name's module the first time the name is asked for."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'arena.tournament' has no attribute {name!r}")
    value = getattr(_importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "MANIFEST",
    "NOT_STARTED",
    "AlreadyRecorded",
    "BotEntry",
    "BotSpec",
    "BotSpecError",
    "BuildError",
    "DriverContext",
    "Executor",
    "Format",
    "InProcessExecutor",
    "Job",
    "LeasableDriver",
    "LivePage",
    "Manifest",
    "ManifestError",
    "MatchOutcome",
    "MatchSpec",
    "NoDriverError",
    "Progress",
    "Ratings",
    "RemoteSeats",
    "ScheduleStats",
    "ScheduledMatch",
    "Session",
    "SessionResult",
    "Standing",
    "Standings",
    "Store",
    "StoreError",
    "Timeouts",
    "TournamentConfig",
    "TournamentConfigError",
    "TournamentError",
    "build_folder",
    "build_schedule",
    "compute_standings",
    "game_type_of",
    "load_manifest",
    "load_tournament",
    "make_bot",
    "match_spec",
    "open_builtin_bot",
    "parse_bot_text",
    "parse_tournament",
    "play_match",
    "run_tournament",
    "schedule_statistics",
    "seat_results",
]
