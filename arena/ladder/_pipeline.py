"""A version's way into the pool: its build, then the gate (item 3 of issue 22).

The build copies the upload's unpacked folder to the version's own folder and runs its
``bot.toml`` build in the bots' sandbox (exactly as ``tournament run`` builds a folder
bot). The gate then plays ``check-bot``'s scenarios, each against a fresh process, and
smoke matches (duplicate, against each house bot) through the tournament session into
the gate's own store: any protocol fault, crash, sit-out or forfeit rejects the version
with the reason and the end of its log. A version that passes is fingerprinted for the
copy check and becomes its team's active one (unless the team pinned another).

What a team reads of this (the reason, the log's end) is its own bot's text: the pages
escape it; nothing here prints it to a terminal.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import secrets
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import trio

from arena.dealer import BotDriver, BotStartError
from arena.ladder._config import LadderConfig
from arena.ladder._copycheck import CopyEntry, find_copies, fingerprint
from arena.ladder._db import ACTIVE, BUILD_FAILED, BUILDING, REJECTED, LadderDB, Version
from arena.ladder._jobs import GATE, Job, enqueue
from arena.store import NOT_STARTED, Store
from arena.tournament import Session, TournamentConfig
from arena.tournament._bots import BotSpec, BotSpecError, folder_bot
from arena.tournament._checks import SCENARIOS, run_checks
from arena.tournament._drivers import DriverContext, open_builtin_bot
from arena.tournament._folder import (
    BUILD_LOG,
    BuildError,
    ManifestError,
    build_folder,
    load_manifest,
)

TAIL_BYTES = 4000
"""How much of a log's end a team's page shows with a failed build or gate."""


class GateFailed(Exception):
    """The gate's verdict against a version: ``reason`` and the log whose end explains it."""

    def __init__(self, reason: str, log: Path | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.log = log


def tail(path: Path | None, limit: int = TAIL_BYTES) -> str | None:
    """The end of a log as text (bytes a bot wrote: undecodable ones replaced)."""
    if path is None:
        return None
    try:
        with path.open("rb") as file:
            size = file.seek(0, 2)
            file.seek(max(0, size - limit))
            return file.read().decode("utf-8", "replace")
    except OSError:
        return None


class Pipeline:
    """Builds and gates versions, one job at a time per kind."""

    def __init__(self, config: LadderConfig, ladder: LadderDB) -> None:
        self.config = config
        self.ladder = ladder

    # --- where things are ---------------------------------------------------------

    def folder(self, version: Version) -> Path:
        """The version's own folder (its build writes here)."""
        return self.config.storage / "versions" / str(version.id)

    def logs(self, version: Version) -> Path:
        return self.config.storage / "logs" / str(version.id)

    def hidden(self) -> tuple[Path, ...]:
        """What no bot and no build may see: the uploads, every version's folder but the
        bot's own is never mounted; these are masked wherever they would be."""
        storage = self.config.storage
        return (
            *self.config.tournament.hidden_paths,
            storage / "archives",
            storage / "sources",
            storage / "gate-runs",
            storage / "logs",
            Path(str(self.config.database)),
            self.config.gate_database,
        )

    # --- the build ----------------------------------------------------------------

    async def build(self, job: Job) -> None:
        version = self._version(job)
        if job.attempts < 0:
            self.ladder.set_status(version.id, BUILD_FAILED, "the build stopped the server 3 times")
            return
        self.ladder.set_status(version.id, BUILDING)
        try:
            await trio.to_thread.run_sync(self._build, version)
        except (BuildError, ManifestError) as error:
            reason = str(error).replace(str(self.folder(version)), ".")
            log = self.folder(version) / BUILD_LOG
            self.ladder.set_status(version.id, BUILD_FAILED, reason, tail(log))
            return
        self.ladder.set_status(version.id, "validating")
        enqueue(self.ladder, GATE, version.id)

    def _build(self, version: Version) -> None:
        folder = self.folder(version)
        if folder.exists():  # a build the server died in: start it over
            shutil.rmtree(folder)
        folder.parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(self.config.storage / version.source, folder, symlinks=True)
        manifest = load_manifest(folder)
        if manifest.network and not self.config.build_network:
            raise ManifestError(
                "bot.toml: network = true, but this ladder's builds have no network "
                "(ladder.build_network = false): ship what the build needs in the folder"
            )
        build_folder(manifest, force=True, hidden=self.hidden())

    # --- the gate -----------------------------------------------------------------

    async def gate(self, job: Job) -> None:
        version = self._version(job)
        if job.attempts < 0:
            self.ladder.set_status(version.id, REJECTED, "the gate stopped the server 3 times")
            return
        try:
            spec = folder_bot(version.bot_name, self.folder(version))
            await self._checks(version, spec)
            await self._smoke(version, spec, job.attempts)
            prints = await self._fingerprint(version, spec)
        except BotSpecError as error:
            self.ladder.set_status(version.id, REJECTED, error.problem)
            return
        except GateFailed as failed:
            here = str(self.folder(version))  # the team reads its own paths as "./..."
            log = tail(failed.log)
            self.ladder.set_status(
                version.id,
                REJECTED,
                failed.reason.replace(here, "."),
                None if log is None else log.replace(here, "."),
            )
            return
        self.ladder.set_fingerprint(version.id, json.dumps(prints))
        self.ladder.set_status(version.id, ACTIVE)
        self.copy_check()

    def _context(self, version: Version, part: str, seed: int | None = None) -> DriverContext:
        timeouts = self.config.tournament.timeouts
        return DriverContext(
            seed=seed,
            log_dir=self.logs(version) / part,
            startup_timeout=timeouts.startup,
            options={
                "workdir": self.folder(version),
                "sandbox": self.config.tournament.sandbox,
                "hidden_paths": self.hidden(),
            },
        )

    def _opener(self, version: Version, spec: BotSpec, part: str):
        @contextlib.asynccontextmanager
        async def open_bot(number: int = 0) -> AsyncIterator[BotDriver]:
            context = self._context(version, f"{part}-{number + 1}")
            try:
                async with open_builtin_bot(spec, context) as driver:
                    yield driver
            except BotStartError as error:
                raise GateFailed(
                    f"{part}: the bot did not start: {error}", _stderr(context)
                ) from None

        return open_bot

    async def _checks(self, version: Version, spec: BotSpec) -> None:
        outcomes = await run_checks(
            self._opener(version, spec, "scenario"),
            action_timeout=self.config.tournament.timeouts.action,
            seed=secrets.randbits(31),
        )
        for number, outcome in enumerate(outcomes):
            if not outcome.passed:
                log = _stderr(self._context(version, f"scenario-{number + 1}"))
                raise GateFailed(
                    f"check-bot scenario {number + 1}/{len(SCENARIOS)} "
                    f"({outcome.scenario.name}): {outcome.problems[0]}",
                    log,
                )

    def _gate_config(self, version: Version, spec: BotSpec, attempt: int) -> TournamentConfig:
        base = self.config.tournament
        house = self.config.house_bots()
        return dataclasses.replace(
            base,
            name=f"gate-v{version.id}-a{attempt}",
            bots=(spec, *house),
            tables=tuple((spec.name, bot.name) for bot in house),
            hands_per_match=self.config.gate_hands,
            duplicate=True,
            rounds=1,
            early_stop=False,
            workers=1,
            executor="local",
            seed=secrets.randbits(63),
            seed_drawn=True,
            deal_key=secrets.token_hex(32),
            output=self.config.storage / "gate-runs",
            database=self.config.gate_database,
            concurrency=min(2, len(house)),
        )

    async def _smoke(self, version: Version, spec: BotSpec, attempt: int) -> None:
        config = self._gate_config(version, spec, attempt)
        with Store.open(config.database) as store:
            async with Session(config, store=store) as session:
                await session.play()
            rows = store.match_rows(tournament=config.name)
        logs = config.output / config.name / "bots"
        for row in rows:
            for seat in row.seats:
                if not seat.bot.startswith(spec.name):
                    continue
                what = _seat_problem(row.reason, seat)
                if what:
                    opponent = next(s.bot for s in row.seats if not s.bot.startswith(spec.name))
                    raise GateFailed(
                        f"smoke match against {opponent} ({row.key}): {what}",
                        _newest_log(logs, spec.name),
                    )

    async def _fingerprint(self, version: Version, spec: BotSpec) -> list[str]:
        key = self.ladder.meta("fingerprint_key")
        if key is None:
            key = secrets.token_hex(32)
            self.ladder.set_meta("fingerprint_key", key)
        prints = await fingerprint(
            self._opener(version, spec, "fingerprint"),
            hands=self.config.fingerprint_hands,
            seed=int(key[:12], 16),
            deal_key=key,
            config=self.config.tournament.game,
            action_timeout=self.config.tournament.timeouts.action,
        )
        return list(prints)

    def copy_check(self) -> int:
        """Compare every fingerprinted version across teams; record new flags; how many."""
        entries = [
            CopyEntry(v.team, v.id, tuple(json.loads(prints)), self.folder(v))
            for v, prints in self.ladder.fingerprints()
        ]
        return self.ladder.add_flags(find_copies(entries))

    def _version(self, job: Job) -> Version:
        version = self.ladder.version(job.subject)
        if version is None:
            raise LookupError(f"job {job.id}: no version {job.subject}")
        return version


def _seat_problem(reason: str | None, seat: object) -> str | None:
    if reason == NOT_STARTED:
        return "the bot did not start"
    if getattr(seat, "forfeited", False):
        return "forfeited"
    if getattr(seat, "sat_out", False):
        return "sat out (too many faults)"
    faults = getattr(seat, "faults", 0)
    if faults:
        return f"{faults} fault{'s' * (faults != 1)}"
    return None


def _stderr(context: DriverContext) -> Path | None:
    """The bot's stderr log in ``context``'s folder (the newest), if it wrote one."""
    return _newest_log(context.log_dir, "") if context.log_dir is not None else None


def _newest_log(folder: Path, prefix: str) -> Path | None:
    try:
        logs = [p for p in folder.iterdir() if p.name.startswith(prefix) and "err" in p.name]
    except OSError:
        return None
    return max(logs, key=lambda p: p.stat().st_mtime, default=None)
