"""The seam for where a match runs (issue 12 item 1): a plain spec in, an outcome out.

A :class:`MatchSpec` is everything needed to play one scheduled match anywhere: its
deterministic id (``<tournament>/<key>``), its seed, its seats, how to reach each bot
(its :meth:`BotSpec.to_dict` and the driver context), the dealer's settings and the
records folder. It is JSON both ways, so it can cross a pipe to a worker process.

A runner plays it, writes the match's records into the folder and returns a
:class:`MatchOutcome`: the :class:`~arena.dealer.MatchResult`, the per-seat summaries
and the summary that ``result.json`` holds (what the store's rows are made of), or,
for a bot that could not start, who and why.

An :class:`Executor` plays a list of specs and hands each outcome to ``deliver``, at
least once per match id. The tournament process is the coordinator: it owns the schedule
and the store and alone writes results; a second outcome for the same id is ignored
(and the store refuses a second result anyway: ``AlreadyRecorded``), so an executor that
plays a match again after a worker died never counts anything twice.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from arena.dealer import (
    BotDriver,
    FaultRecord,
    MatchResult,
    MatchSettings,
    OnFaultLimit,
    SeatSummary,
)
from arena.engine import GameConfig
from arena.tournament._bots import REMOTE, BotSpec
from arena.tournament._config import TournamentConfig
from arena.tournament._config_load import bot_from_dict
from arena.tournament._drivers import DriverContext


@dataclass(frozen=True, kw_only=True)
class MatchSpec:
    """One match, as plain data (see the module docstring); :meth:`to_json` round-trips.

    ``bots`` holds each seat's bot (seat order, a bot once per seat) as
    :meth:`BotSpec.to_dict`; ``context`` the driver context (``seed``, ``log_dir``,
    ``startup_timeout``, ``options``); ``settings`` the :class:`MatchSettings`.
    """

    match_id: str
    key: str
    seed: int
    seats: tuple[str, ...]
    bots: tuple[dict[str, Any], ...]
    context: dict[str, Any]
    settings: dict[str, Any]
    folder: str
    early_stop: bool = False
    source: str = "<string>"

    @property
    def duplicate(self) -> bool:
        return bool(self.settings["duplicate"])

    @property
    def remote(self) -> bool:
        """Whether a seat's bot dials in (it can play only where ``arena serve`` runs)."""
        return any(REMOTE in bot for bot in self.bots)

    def bot_specs(self) -> list[BotSpec]:
        """Each seat's bot, rebuilt and checked as a tournament file's bot is."""
        return [bot_from_dict(bot, self.source) for bot in self.bots]

    def match_settings(self) -> MatchSettings:
        data = dict(self.settings)
        data["config"] = GameConfig(**data["config"])
        data["on_fault_limit"] = OnFaultLimit(data["on_fault_limit"])
        return MatchSettings(**data)

    def driver_context(self, *, log_dir: str | None = None) -> DriverContext:
        """The drivers' context; ``log_dir`` replaces where launched bots' logs go."""
        options = dict(self.context["options"])
        if "workdir" in options:
            options["workdir"] = Path(options["workdir"])
        options["hidden_paths"] = tuple(Path(p) for p in options.get("hidden_paths", ()))
        logs = log_dir or self.context["log_dir"]
        return DriverContext(
            seed=self.context["seed"],
            log_dir=None if logs is None else Path(logs),
            startup_timeout=self.context["startup_timeout"],
            options=options,
        )

    def to_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["seats"] = list(self.seats)
        data["bots"] = [dict(bot) for bot in self.bots]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchSpec:
        return cls(
            **{
                **data,
                "seats": tuple(data["seats"]),
                "bots": tuple(dict(bot) for bot in data["bots"]),
            }
        )

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> MatchSpec:
        return cls.from_dict(json.loads(text))


def match_spec(config: TournamentConfig, match: Any) -> MatchSpec:
    """The spec of one scheduled match of ``config`` (a :class:`ScheduledMatch` or a stored
    row of the schedule), the same for every executor."""
    settings = config.match_settings(match)
    context = config.driver_context()
    options = dict(context.options or {})
    options["workdir"] = str(options["workdir"])
    options["hidden_paths"] = [str(p) for p in options.get("hidden_paths", ())]
    plain = {f.name: getattr(settings, f.name) for f in dataclasses.fields(MatchSettings)}
    plain["config"] = {
        f.name: _plain(getattr(settings.config, f.name)) for f in dataclasses.fields(GameConfig)
    }
    plain["on_fault_limit"] = settings.on_fault_limit.value
    return MatchSpec(
        match_id=settings.match_id,
        key=match.key,
        seed=match.seed,
        seats=tuple(match.seats),
        bots=tuple(config.bot(name).to_dict() for name in match.seats),
        context={
            "seed": context.seed,
            "log_dir": None if context.log_dir is None else str(context.log_dir),
            "startup_timeout": context.startup_timeout,
            "options": options,
        },
        settings=plain,
        folder=str(config.output / config.name / match.key),
        early_stop=config.early_stop and len(match.seats) == 2,
        source=config.source,
    )


def _plain(value: object) -> object:
    return getattr(value, "value", value)


@dataclass(frozen=True, slots=True)
class MatchOutcome:
    """What a runner returns for one spec: a played match, or bots that did not start.

    ``seats`` and ``summary`` are what the recorder computed for ``result.json``; the
    store's rows are made from the same values. ``not_started`` maps each bot that could
    not start to the printable tail of its error (then ``result`` is ``None``).
    """

    result: MatchResult | None
    block: int = 1
    seats: list[SeatSummary] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    not_started: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "result": None if self.result is None else dataclasses.asdict(self.result),
            "block": self.block,
            "seats": [dataclasses.asdict(seat) for seat in self.seats],
            "summary": self.summary,
            "not_started": dict(self.not_started),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MatchOutcome:
        """The outcome a worker sent; a :class:`ValueError` saying what is wrong if it is
        malformed (a key missing, a value of the wrong shape), never a KeyError/TypeError."""
        try:
            raw = data["result"]
            result = None
            if raw is not None:
                faults = [FaultRecord(**fault) for fault in raw["faults"]]
                result = MatchResult(**{**raw, "faults": faults})
            seats = [SeatSummary(**{**s, "units": tuple(s["units"])}) for s in data["seats"]]
            summary, not_started = data["summary"], data["not_started"]
            if not isinstance(summary, dict) or not isinstance(not_started, dict):
                raise TypeError("summary and not_started must be objects")
            block = data["block"]
            if not isinstance(block, int):
                raise TypeError("block must be a whole number")
            started = {str(k): str(v) for k, v in not_started.items()}
            return cls(result, block, seats, summary, started)
        except KeyError as error:
            raise ValueError(f"malformed match outcome: no {error}") from None
        except (TypeError, AttributeError) as error:
            raise ValueError(f"malformed match outcome: {error}") from None


Deliver = Callable[[MatchSpec, MatchOutcome], Awaitable[None]]
"""``deliver(spec, outcome)``: the coordinator takes an outcome (returns without waiting
for earlier matches to be committed; a second outcome for an id is ignored)."""

DriverOpener = Callable[[BotSpec], AbstractAsyncContextManager[BotDriver]]
"""Opens one bot of the tournament file for the whole tournament (the CLI passes the
plugins' :func:`arena.plugins.open_driver`; without one, arena's own kinds only)."""


@dataclass(frozen=True, kw_only=True)
class Job:
    """What an executor is asked to play: ``specs`` in schedule order (``matches`` are
    the same matches as scheduled rows), the config they come from, and where to report."""

    config: TournamentConfig
    specs: Sequence[MatchSpec]
    matches: Sequence[Any]
    deliver: Deliver
    note: Callable[[str], None]
    waiting: Callable[[list[str]], None]
    opener: DriverOpener | None = None
    observers: Any = None
    """The runner's :class:`~arena.tournament._runner.Observers` (``on_match_started``,
    ``on_hand``); executors that play elsewhere cannot call ``on_hand``."""


class Executor(Protocol):
    """Where matches run: :class:`~arena.tournament._inprocess.InProcessExecutor` (this
    process, the default) or a pool of worker processes (:mod:`arena.executors`).

    ``run(job)`` plays every spec of ``job`` and ``await job.deliver(spec, outcome)``
    for each, at least once; it returns when all are delivered. Errors that stop the
    tournament are :class:`~arena.tournament.TournamentError` (one line).
    """

    async def run(self, job: Job) -> None: ...
