"""Tournament files: TOML read with :mod:`tomllib`, checked key by key on load.

A tournament file names the bots, the game, the clocks, the rating settings and the
format (round robin, gauntlet, ring or ladder). :func:`load_tournament` turns it into
a frozen :class:`TournamentConfig` or raises :class:`TournamentConfigError` with one
line that names the file, the key path (``bots[2].command``, ``game.max_draw``) and
what is wrong. Bot indexes in key paths count from 0, in file order.

The validation is written by hand rather than with pydantic: every message is ours,
unknown keys get a "did you mean" hint, and the engine's own :class:`ConfigError`
comes back naming ``game.<key>``. Relative paths (``output``, ``database``, a bot's
``workdir``) are resolved against the TOML file's folder, and bot commands run in
that folder unless the bot says otherwise, so ``{python} ../examples_bots/x.py``
means the same thing wherever ``arena`` is started.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from arena.dealer import (
    ACTION_TIMEOUT,
    HANDS_PER_MATCH,
    HELLO_TIMEOUT,
    STARTUP_TIMEOUT,
    WALL_BUDGET,
    MatchSettings,
    OnFaultLimit,
    new_deal_key,
)
from arena.engine import GameConfig
from arena.ratings import DEFAULT_ANCHOR_RATING, DEFAULT_K_FACTOR, DEFAULT_START_RATING
from arena.store._db import redact
from arena.tournament._bots import BUILTIN_KINDS, REMOTE, BotSpec
from arena.tournament._drivers import DriverContext
from arena.tournament._scheduled import ScheduledMatch


class TournamentConfigError(ValueError):
    """A tournament file that cannot be used: the user's fault, the message says why.

    ``source`` is the file (or ``"<string>"``), ``key`` the dotted key path (``None``
    for a file that is not valid TOML) and ``problem`` what is wrong with it.
    """

    def __init__(self, source: str, key: str | None, problem: str) -> None:
        where = f"{source}: {key}" if key else source
        super().__init__(f"{where}: {problem}")
        self.source = source
        self.key = key
        self.problem = problem


class Format(StrEnum):
    """How the bots are paired (see :func:`arena.tournament.build_schedule`)."""

    ROUND_ROBIN = "round_robin"
    GAUNTLET = "gauntlet"
    RING = "ring"
    LADDER = "ladder"


MAX_MATCHES = 1_000_000
"""The most matches one tournament file may schedule (the schedule is stored up front)."""

HEADS_UP_FORMATS = frozenset({Format.ROUND_ROBIN, Format.GAUNTLET, Format.LADDER})


BotEntry = BotSpec
"""One ``[[bots]]`` entry: the same record as a bot on the command line."""


BENCH_AFTER = 1
"""Default ``timeouts.bench_after``: a bot sat out of one match for time is benched."""


@dataclass(frozen=True, kw_only=True)
class Timeouts:
    """``[timeouts]``, in seconds: the action clock, the time bank, the wall budget, bot
    start-up, R25."""

    action: float = ACTION_TIMEOUT
    time_bank: float = 0.0
    wall_budget: float = WALL_BUDGET
    """Per match, the wall seconds past ``action`` a launched bot's decisions may take
    beyond twice the CPU they used (see ``arena.dealer.WALL_BUDGET``)."""
    startup: float = STARTUP_TIMEOUT
    hello: float = HELLO_TIMEOUT
    fault_limit: int = 0
    on_fault_limit: OnFaultLimit = OnFaultLimit.SIT_OUT
    bench_after: int = BENCH_AFTER
    """Matches a bot may be sat out of on its wall budget before the rest of its matches
    are recorded as not started (0: never); see ``arena.tournament._benching``."""


_STORED_IF_SET = {"wall_budget": WALL_BUDGET, "bench_after": BENCH_AFTER}
"""Timeouts stored only when not their default, so tournaments stored before them resume."""


@dataclass(frozen=True, kw_only=True)
class Ratings:
    """``[ratings]``: Elo's K factor and starting rating; an optional anchored bot."""

    k: float = DEFAULT_K_FACTOR
    start: float = DEFAULT_START_RATING
    anchor: str | None = None
    anchor_rating: float = DEFAULT_ANCHOR_RATING


@dataclass(frozen=True, kw_only=True)
class TournamentConfig:
    """A validated tournament file. Paths are absolute; ``seed`` is always set.

    ``seed_drawn`` says the file gave no seed and one was drawn from the CSPRNG: record
    it, and on resume put the stored one back with :meth:`with_seed` before comparing
    :meth:`to_json` with the stored copy.
    """

    name: str
    format: Format = Format.ROUND_ROBIN
    hands_per_match: int = HANDS_PER_MATCH
    duplicate: bool = True
    rounds: int = 1
    table_size: int = 2
    challengers: tuple[str, ...] = ()
    tables: tuple[tuple[str, ...], ...] = ()
    """The tables to play, each a seat order of bot names (the ladder's batches, issue 22):
    when given, the schedule is these tables (each once a round) whatever the format.
    Set by code, never by a tournament file."""
    concurrency: int = 1
    max_tables_per_bot: int = 1
    workers: int = 1
    """Dealer processes playing matches (``workers = N`` or ``"auto"``: one per core); 1 plays
    every match in this process. Not stored: a tournament may resume with other workers.
    Not used with ``executor = "ray"`` (the cluster's CPUs decide)."""
    executor: str = "local"
    """``"local"`` (this machine: in-process, or ``workers`` processes) or ``"ray"`` (a
    Ray task per match on the cluster at ``ray_address``). Not stored, like ``workers``."""
    ray_address: str | None = None
    """``tournament.ray_address`` as given (``None``: Ray's ``"auto"``); Ray only."""
    ray_resources: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    """Bot name -> the Ray custom resources its matches' nodes need (the bots'
    ``ray_resources``); Ray only, not stored, never part of a bot's :meth:`BotSpec.to_dict`."""
    max_live_bots: int | None = None
    """``tournament.max_live_bots``: a bound on live launched bot processes per process
    that plays matches (at least one match's); ``None``: the default bound
    (``DEFAULT_MAX_LIVE_BOTS`` in ``_budget``). Not stored: a tournament may resume with
    another bound."""
    seed: int
    seed_drawn: bool = False
    deal_key: str = field(default_factory=new_deal_key, repr=False)
    """The referee's secret that, with the seed, deals every card (issue 19 item 2): drawn
    when the file is loaded (or ``$ARENA_DEAL_KEY``), kept in the database, put back on
    resume with :meth:`with_deal_key`; never in :meth:`to_json` or a report."""
    output: Path
    database: Path | str
    """A SQLite file, or a ``postgresql://`` URL (a str) of a shared database."""
    early_stop: bool = False
    sandbox: str = "auto"
    game: GameConfig = field(default_factory=GameConfig)
    stack: int = MatchSettings.starting_stack
    timeouts: Timeouts = field(default_factory=Timeouts)
    ratings: Ratings = field(default_factory=Ratings)
    bots: tuple[BotEntry, ...] = ()
    workdir: Path
    source: str = "<string>"

    @property
    def database_name(self) -> str:
        """The database for messages: the file, or the URL without its password."""
        return redact(self.database) if isinstance(self.database, str) else str(self.database)

    @property
    def in_process(self) -> bool:
        """Whether every match is played in this process (its bots opened here)."""
        return self.executor == "local" and self.workers == 1

    def executor_notes(self) -> list[str]:
        """Lines to print at start: keys this executor does not use, and so ignores."""
        if self.executor == "ray":
            if self.workers == 1:
                return []
            return [
                "tournament.workers is not used with executor = 'ray': the "
                f"cluster's CPUs decide how many matches run at once, one CPU each ({self.source})"
            ]
        keys = ["tournament.ray_address"] if self.ray_address is not None else []
        keys += [
            f"bots[{i}].ray_resources"
            for i, bot in enumerate(self.bots)
            if bot.name in self.ray_resources
        ]
        if not keys:
            return []
        return [
            f"{', '.join(keys)}: only used with executor = 'ray'; ignored here, where "
            f"executor = 'local' ({self.source})"
        ]

    @property
    def bot_names(self) -> tuple[str, ...]:
        return tuple(bot.name for bot in self.bots)

    def bot(self, name: str) -> BotEntry:
        """The entry called ``name``; ``KeyError`` if there is none."""
        for bot in self.bots:
            if bot.name == name:
                return bot
        raise KeyError(name)

    def game_config(self) -> GameConfig:
        return self.game

    def hands_for(self, seats: int) -> int:
        """Hands per match at a table of ``seats``: with ``duplicate``, rounded up to a
        multiple of ``seats``, so each deck is dealt once with the button at every seat."""
        hands = self.hands_per_match
        if self.duplicate:
            hands = -(-hands // seats) * seats
        return hands

    def match_settings(self, match: ScheduledMatch) -> MatchSettings:
        """The dealer's settings for one scheduled match."""
        t = self.timeouts
        return MatchSettings(
            config=self.game,
            hands=match.hands,
            starting_stack=self.stack,
            seed=match.seed,
            duplicate=match.duplicate,
            action_timeout=t.action,
            time_bank=t.time_bank,
            wall_budget=t.wall_budget,
            hello_timeout=t.hello,
            fault_limit=t.fault_limit,
            on_fault_limit=t.on_fault_limit,
            match_id=f"{self.name}/{match.key}",
            table_id=match.key,
            deal_key=self.deal_key,
        )

    @property
    def hidden_paths(self) -> tuple[Path, ...]:
        """The records (hidden cards) and the database: never visible to a bot or a build."""
        return (self.output, *database_files(self.database))

    def driver_context(self) -> DriverContext:
        """What drivers get for this tournament's bots: its seed, clocks and folders."""
        return DriverContext(
            seed=self.seed,
            log_dir=self.output / self.name / "bots",
            startup_timeout=self.timeouts.startup,
            options={
                "workdir": self.workdir,
                "sandbox": self.sandbox,
                "hidden_paths": self.hidden_paths,
            },
        )

    def with_deal_key(self, key: str) -> TournamentConfig:
        """The same tournament with ``key`` (the stored one, on resume)."""
        return dataclasses.replace(self, deal_key=key)

    def with_seed(self, seed: int) -> TournamentConfig:
        """The same tournament with ``seed`` (a stored one, on resume)."""
        return dataclasses.replace(self, seed=seed, seed_drawn=False)

    def without_unavailable(self) -> tuple[TournamentConfig, list[str]]:
        """Drop bots whose ``requires`` executable is missing; return the notes to print.

        Raises :class:`TournamentConfigError` if what is left cannot be played (fewer
        than two bots, a challenger dropped, a ring table larger than the field).
        """
        missing = [bot for bot in self.bots if not bot.available()]
        if not missing:
            return self, []
        notes = [
            f"skipping bot {bot.name!r}: {bot.requires!r} is not installed (not found on PATH)"
            for bot in missing
        ]
        dropped = {bot.name for bot in missing}
        kept = tuple(bot for bot in self.bots if bot.name not in dropped)
        for challenger in self.challengers:
            if challenger in dropped:
                raise TournamentConfigError(
                    self.source,
                    "tournament.challengers",
                    f"challenger {challenger!r} needs {self.bot(challenger).requires!r}, "
                    "which is not installed",
                )
        config = dataclasses.replace(self, bots=kept)
        try:
            _check_field(config, "bots")
        except TournamentConfigError as error:
            skipped = ", ".join(repr(bot.name) for bot in missing)
            raise TournamentConfigError(
                self.source, error.key, f"{error.problem} after skipping {skipped}"
            ) from None
        return config, notes

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready data: every setting that shapes the schedule and the games."""
        game = {f.name: _plain(getattr(self.game, f.name)) for f in dataclasses.fields(GameConfig)}
        return {
            "tournament": {
                "name": self.name,
                "format": self.format.value,
                "hands_per_match": self.hands_per_match,
                "duplicate": self.duplicate,
                "rounds": self.rounds,
                "table_size": self.table_size,
                "challengers": list(self.challengers),
                **({"tables": [list(t) for t in self.tables]} if self.tables else {}),
                "concurrency": self.concurrency,
                "max_tables_per_bot": self.max_tables_per_bot,
                "seed": self.seed,
                "output": str(self.output),
                "database": self.database_name,
                "early_stop": self.early_stop,
                # only when set, so tournaments stored before it resume unchanged
                **({"sandbox": self.sandbox} if self.sandbox != "auto" else {}),
            },
            "game": {**game, "stack": self.stack},
            "timeouts": {
                k: _plain(v)
                for k, v in dataclasses.asdict(self.timeouts).items()
                if k not in _STORED_IF_SET or v != _STORED_IF_SET[k]
            },
            "ratings": dataclasses.asdict(self.ratings),
            "bots": [bot.to_dict() for bot in self.bots],
        }

    def to_json(self) -> str:
        """Canonical JSON (sorted keys, no spaces): store it, compare it on resume."""
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))


_DB_FILES = ("", "-wal", "-shm", ".lock")
"""The database file and SQLite's (and the run lock's) files beside it: all hidden from bots."""


def database_files(database: Path | str) -> tuple[Path, ...]:
    """The files of a SQLite database (none for a PostgreSQL URL)."""
    if isinstance(database, str):
        return ()
    return tuple(database.with_name(database.name + end) for end in _DB_FILES)


def _plain(value: object) -> object:
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, Path):
        return str(value)
    return value


def _check_field(config: TournamentConfig, bots_key: str) -> None:
    """Checks across sections: enough bots, challengers and the anchor among them."""
    src = config.source
    names = config.bot_names
    if len(names) < 2:
        raise TournamentConfigError(
            src, bots_key, f"a tournament needs at least 2 bots, got {len(names)}"
        )
    for i, challenger in enumerate(config.challengers):
        if challenger not in names:
            raise TournamentConfigError(
                src,
                f"tournament.challengers[{i}]",
                f"no bot is named {challenger!r}; bots are {', '.join(names)}",
            )
    if config.format in (Format.GAUNTLET, Format.LADDER) and set(names) <= set(config.challengers):
        what = "a field to play" if config.format is Format.GAUNTLET else "a pool to play"
        raise TournamentConfigError(
            src,
            "tournament.challengers",
            f"every bot is a challenger; format = {config.format.value!r} needs {what}",
        )
    if config.format is Format.RING and config.table_size > len(names):
        raise TournamentConfigError(
            src,
            "tournament.table_size",
            f"{config.table_size} seats but only {len(names)} bots; lower table_size or add bots",
        )
    n, c = len(names), len(config.challengers)
    per_round = {Format.ROUND_ROBIN: n * (n - 1) // 2, Format.RING: n}.get(
        config.format, c * (n - c)
    )
    if per_round * config.rounds > MAX_MATCHES:
        raise TournamentConfigError(
            src,
            "tournament.rounds",
            f"{per_round * config.rounds} matches is more than {MAX_MATCHES}; use fewer rounds or bots",
        )
    anchor = config.ratings.anchor
    if anchor is not None and config.format is not Format.LADDER and anchor not in names:
        raise TournamentConfigError(
            src, "ratings.anchor", f"no bot is named {anchor!r}; bots are {', '.join(names)}"
        )
    _check_workers(config)


def _check_workers(config: TournamentConfig) -> None:
    """Workers and Ray tasks open their own bots: arena's own kinds only, never a bot that
    dials in."""
    if config.in_process:
        return
    ray = config.executor == "ray"
    where = "on Ray" if ray else "in worker processes"
    instead = "executor = 'local' and workers = 1" if ray else "workers = 1"
    got = "executor = 'ray'" if ray else f"workers = {config.workers}"
    for i, bot in enumerate(config.bots):
        if bot.kind == REMOTE:
            raise TournamentConfigError(
                config.source,
                "tournament.executor" if ray else "tournament.workers",
                f"bot {bot.name!r} dials in (remote = true) and plays only in the coordinator "
                f"process: use {instead} with remote bots (got {got})",
            )
        if bot.kind not in BUILTIN_KINDS:
            raise TournamentConfigError(
                config.source,
                f"bots[{i}].plugin",
                f"bot {bot.name!r} is driven by a plugin, which matches {where} do not load: "
                f"use {instead} (got {got})",
            )
