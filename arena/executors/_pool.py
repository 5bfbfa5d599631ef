"""Matches in local worker processes (issue 12 item 2): ``workers = N`` in ``[tournament]``.

Each worker keeps its launched bots between matches, at most ``max_live_bots`` of them
(issue 12 item 5): the coordinator gives each worker, when the bound binds, a match whose
bots it runs already (:class:`~arena.tournament._budget.PoolPlan`), and with each match
the bots to stop first (no match left, or room for this one, the one needed last first).

:class:`ProcessExecutor` keeps ``N`` workers (``python -m arena.executors.worker``,
started with :mod:`subprocess` through Trio, never forked) and gives each one match at a
time over its stdin (JSON lines); each worker plays it with its own bots and answers with
the outcome. A worker whose pipe closes before it answers (it was killed, or crashed) is
replaced by a new one, which plays that match again (at most :data:`MAX_ATTEMPTS` times);
its bots died with it (each launched bot's supervisor watches its worker). The
coordinator commits each outcome once per match id, so a match played twice never
counts twice.

A worker sends a heartbeat (``{"alive": N}``) every few seconds while it plays: one
silent for :data:`SILENCE_TIMEOUT` seconds (stopped, deadlocked, on a hung file system) is
killed by its pid, with one line naming it, and replaced as a dead one is. A worker that
says something malformed (a line that is not a JSON object, an outcome missing a key, a
``done`` for a match it was not given) is treated as broken the same way, with one line
naming it; after :data:`MAX_ATTEMPTS` the tournament stops with one line, never a
traceback.

A worker that exits before it says it is ready is a broken installation, not a bad
match: one line naming its exit status and the tail of its stderr, not a retry loop.
Each worker's stderr goes to ``<records>/workers/<name>.stderr.log``; a worker's name is
one no earlier run of the tournament used (a ``resume`` never overwrites the log that the
last error named, nor its bots' logs in ``<records>/bots/<name>/``).

Ctrl-C (or any error): every worker is sent SIGTERM (it closes its bots and exits), and
killed after :data:`STOP_GRACE` seconds; what was committed stays, ``resume`` plays the
rest.
"""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import trio

from arena.store._schema import StoreError
from arena.text import escape_untrusted
from arena.tournament import Job, MatchOutcome, MatchSpec, TournamentError
from arena.tournament._budget import LOOKAHEAD, BudgetStats, PoolPlan, bound_for, counts
from arena.tournament._errors import expected_error
from arena.tournament._not_started import start_note

MAX_ATTEMPTS = 3
"""Times a match is given to a worker before a worker dying on it stops the tournament."""

STOP_GRACE = 5.0
"""Seconds a stopped worker has to close its bots before it is killed."""

READY_TIMEOUT = 120.0
"""Seconds a new worker has to import arena and say it is ready."""

SILENCE_TIMEOUT = 30.0
"""Seconds without a line from a playing worker (it sends a heartbeat every
:data:`arena.executors.worker.HEARTBEAT` seconds) before it is killed and replaced."""

WORKER_COMMAND = (sys.executable, "-m", "arena.executors.worker")
"""How a worker is started (``--name NAME`` is added)."""


class WorkerDied(Exception):
    """A worker's pipe closed before it answered (killed, or crashed), it fell silent,
    or it said something malformed; ``why`` says which (after its name)."""

    def __init__(self, name: str, why: str = "died") -> None:
        super().__init__(f"worker process {name} {why}")
        self.name = name
        self.why = why


class _Worker:
    """One worker process and its pipes."""

    def __init__(self, process: trio.Process, name: str, stderr: IO[bytes]) -> None:
        self.process = process
        self.name = name
        self._stderr = stderr
        self._buffer = bytearray()

    async def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        try:
            await self.process.stdin.send_all(json.dumps(message).encode() + b"\n")
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            raise WorkerDied(self.name) from None

    async def receive(self) -> dict[str, Any]:
        """The worker's next message; :class:`WorkerDied` at the end of its stdout."""
        assert self.process.stdout is not None
        while b"\n" not in self._buffer:
            try:
                chunk = await self.process.stdout.receive_some(1 << 16)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                chunk = b""
            if not chunk:
                raise WorkerDied(self.name)
            self._buffer += chunk
        line, _, rest = bytes(self._buffer).partition(b"\n")
        self._buffer = bytearray(rest)
        try:
            message = json.loads(line)
        except ValueError:  # not JSON, or not UTF-8
            message = None
        if not isinstance(message, dict):
            shown = escape_untrusted(line[:80].decode("utf-8", "replace"), one_line=True)
            raise WorkerDied(self.name, f"sent a line that is not a JSON object ({shown!r})")
        return message

    def kill(self) -> None:
        """SIGKILL it now (a stopped or stuck worker would not act on SIGTERM)."""
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.kill()

    async def stop(self) -> None:
        """Close its stdin, SIGTERM, and after :data:`STOP_GRACE` s SIGKILL; reap it."""
        with trio.CancelScope(shield=True):
            if self.process.stdin is not None:
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                    await self.process.stdin.aclose()
            if self.process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    self.process.send_signal(signal.SIGTERM)
            with trio.move_on_after(STOP_GRACE):
                await self.process.wait()
            if self.process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    self.process.kill()
                await self.process.wait()
            for stream in (self.process.stdout,):
                if stream is not None:
                    await stream.aclose()
            self._stderr.close()


class ProcessExecutor:
    """Plays a tournament's matches in ``workers`` local worker processes.

    ``command`` replaces :data:`WORKER_COMMAND` (a test starts a broken worker with it).
    :meth:`pids` lists the live workers (a test kills one mid-match).
    """

    def __init__(
        self,
        workers: int,
        *,
        command: Sequence[str] | None = None,
        max_live_bots: int | None = None,
        lookahead: int = LOOKAHEAD,
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers = workers
        self.command = list(command or WORKER_COMMAND)
        self.max_live_bots = max_live_bots
        """Each worker's bound on launched bot processes (``None``: the file's)."""
        self.lookahead = lookahead
        self.stats: list[BudgetStats] = []
        """Per worker slot, what its bot budget did (issue 12 item 5)."""
        self._live: dict[str, _Worker] = {}
        self._started = 0
        self.replaced = 0
        """Workers that died mid-match and were replaced (their match played again)."""

    def pids(self) -> list[int]:
        """The process ids of the live workers."""
        return [worker.process.pid for worker in self._live.values()]

    async def run(self, job: Job) -> None:
        remote = [spec.key for spec in job.specs if spec.remote]
        if remote:  # the loader refuses workers > 1 with remote bots; a direct caller too
            raise TournamentError(
                f"match {remote[0]} has a bot that dials in: remote bots play only in the "
                "coordinator process (use workers = 1 with `arena serve`)"
            )
        plan = self._plan(job)
        failed: dict[str, tuple[str, int]] = {}
        try:
            async with trio.open_nursery() as nursery:
                for _ in range(min(self.workers, len(job.specs))):
                    nursery.start_soon(self._slot, job, plan, failed)
        except BaseExceptionGroup as group:  # one slot's error stops them all: say that one
            cause = expected_error(group, (TournamentError, StoreError))
            if cause is None:
                raise
            raise cause from None
        for name, (tail, count) in sorted(failed.items()):
            job.note(start_note(name, tail, count, job.config.source))

    def _plan(self, job: Job) -> PoolPlan:
        """The matches left and each worker's bound (a note if it had to be raised)."""
        names = {name for spec in job.specs for name in spec.seats}
        counted = {name for name in names if counts(job.config.bot(name).kind)}.__contains__
        wanted = self.max_live_bots
        if wanted is None:
            wanted = getattr(job.config, "max_live_bots", None)
        bound, note = bound_for(wanted, job.specs, counted)
        if note:
            job.note(note)
        return PoolPlan(job.specs, counted, bound, lookahead=self.lookahead)

    async def _slot(self, job: Job, plan: PoolPlan, failed: dict[str, tuple[str, int]]) -> None:
        """One worker's loop: take the next match (one whose bots this worker runs, if the
        bound binds), play it there, deliver it; replace the worker and play the match
        again if it dies. A bot that could not start forfeits its matches left."""
        worker: _Worker | None = None
        view = plan.worker()
        self.stats.append(view.stats)
        try:
            while (spec := view.next()) is not None:
                absent = {name: plan.failed[name] for name in spec.seats if name in plan.failed}
                if absent:  # a bot that failed meanwhile in another worker
                    for name, tail in absent.items():
                        _count(failed, name, tail, 1)
                    await _forfeit(job, [spec], plan)
                    continue
                release = view.release_for(spec)
                for attempt in range(1, MAX_ATTEMPTS + 1):
                    if worker is None:
                        worker = await self._start(job, plan.bound)
                    try:
                        outcome, live = await self._play(worker, spec, job, release)
                        break
                    except WorkerDied as died:
                        if died.why != "died":  # silent or malformed: it is still running
                            worker.kill()
                            job.note(f"{died}: killed; match {spec.key} is played again")
                        await self._forget(worker)
                        worker, release = None, []
                        view.lost()
                        self.replaced += 1
                        if attempt == MAX_ATTEMPTS:
                            raise TournamentError(
                                f"match {spec.key}: its worker process died, fell silent or "
                                f"was broken {attempt} times (last: {died}; see "
                                f"{self._log_dir(job)}); nothing of it was recorded, "
                                f"`arena tournament resume {job.config.source}` plays it again"
                            ) from None
                view.played(release, live)
                for name, tail in outcome.not_started.items():  # not tried again
                    withdrawn = plan.withdraw(name, tail)
                    _count(failed, name, tail, 1 + len(withdrawn))
                    await _forfeit(job, withdrawn, plan)
                await job.deliver(spec, outcome)
        finally:
            if worker is not None:
                await self._forget(worker)

    async def _play(
        self, worker: _Worker, spec: MatchSpec, job: Job, release: list[str]
    ) -> tuple[MatchOutcome, dict[str, int]]:
        """Play ``spec`` in ``worker`` after it stops ``release``; the outcome, and the
        launched bots the worker runs afterwards. :class:`WorkerDied` if it dies, falls
        silent or says something malformed."""
        await worker.send({"play": spec.to_dict(), "release": release})
        while True:
            message: dict[str, Any] | None = None
            with trio.move_on_after(SILENCE_TIMEOUT):
                message = await worker.receive()
            if message is None:  # nothing, not even a heartbeat
                pid = worker.process.pid
                raise WorkerDied(worker.name, f"(pid {pid}) was silent for {SILENCE_TIMEOUT:g} s")
            if "note" in message:
                job.note(str(message["note"]))
            elif "started" in message:
                started = getattr(job.observers, "on_match_started", None)
                if started is not None:
                    started(spec.match_id, list(spec.seats), spec.match_settings())
            elif "failed" in message:
                error = message.get("error")
                if not isinstance(error, str):
                    raise WorkerDied(worker.name, "said a match failed without saying why")
                raise TournamentError(error)
            elif "done" in message:
                return _done(worker.name, spec, message)

    def _log_dir(self, job: Job) -> Path:
        return job.config.output / job.config.name / "workers"

    async def _start(self, job: Job, max_live_bots: int) -> _Worker:
        """A new worker, once it said it is ready; a TournamentError if it exits first."""
        logs = self._log_dir(job)
        logs.mkdir(parents=True, exist_ok=True)
        bots = job.config.output / job.config.name / "bots"
        while True:  # a name no earlier run used: its logs are what an error named
            self._started += 1
            name = f"worker-{self._started}"
            path = logs / f"{name}.stderr.log"
            if not path.exists() and not (bots / name).exists():
                break
        stderr = path.open("xb")
        try:
            process = await trio.lowlevel.open_process(
                [*self.command, "--name", name, "--max-live-bots", str(max_live_bots)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=stderr,
            )
        except OSError as error:
            stderr.close()
            raise TournamentError(
                f"cannot start worker process {name} ({self.command[0]}): {error.strerror}"
            ) from None
        worker = _Worker(process, name, stderr)
        self._live[name] = worker
        try:
            with trio.fail_after(READY_TIMEOUT):
                message = await worker.receive()
            if "ready" not in message:
                raise WorkerDied(name)
        except (WorkerDied, trio.TooSlowError, ValueError):
            await self._forget(worker)
            raise TournamentError(_broken_line(name, process.returncode, path)) from None
        return worker

    async def _forget(self, worker: _Worker) -> None:
        self._live.pop(worker.name, None)
        await worker.stop()


def _done(
    name: str, spec: MatchSpec, message: dict[str, Any]
) -> tuple[MatchOutcome, dict[str, int]]:
    """A ``done`` message's outcome and live bots; :class:`WorkerDied` if it is malformed
    or for another match than ``spec`` (a broken worker: its match is played again)."""
    if message["done"] != spec.match_id:
        raise WorkerDied(name, f"answered for a match it was not given (playing {spec.key})")
    try:
        live = {str(k): int(v) for k, v in dict(message.get("live") or {}).items()}
        return MatchOutcome.from_dict(message["outcome"]), live
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        why = escape_untrusted(str(error), one_line=True)[:120]
        raise WorkerDied(name, f"sent a malformed outcome for match {spec.key} ({why})") from None


def _count(failed: dict[str, tuple[str, int]], name: str, tail: str, matches: int) -> None:
    """Count ``matches`` more forfeits of ``name`` for the note said at the end."""
    _, count = failed.get(name, (tail, 0))
    failed[name] = (tail, count + matches)


async def _forfeit(job: Job, specs: Sequence[MatchSpec], plan: PoolPlan) -> None:
    """Deliver ``specs`` as not started by their bots that could not start."""
    for spec in specs:
        missing = {name: plan.failed[name] for name in spec.seats if name in plan.failed}
        await job.deliver(spec, MatchOutcome(None, not_started=missing))


def _broken_line(name: str, status: int | None, stderr: Path) -> str:
    """One line for a worker that never became ready: its status and its stderr's tail."""
    try:
        lines = stderr.read_text(encoding="utf-8", errors="replace").strip().splitlines()
    except OSError:
        lines = []
    tail = escape_untrusted(lines[-1], one_line=True)[-200:] if lines else "no output"
    how = "did not say it was ready" if status is None else f"exited with status {status}"
    return (
        f"worker process {name} {how} before its first match ({tail}); see {stderr} "
        "(is arena installed for this interpreter?)"
    )


def executor_for(workers: int) -> ProcessExecutor | None:
    """The executor for ``workers`` (``[tournament] workers``): ``None`` (the in-process
    default) for 1, else a pool of that many worker processes."""
    return None if workers <= 1 else ProcessExecutor(workers)
