"""Matches as Ray tasks, over one machine or many (issue 12 item 3): ``pip install arena[ray]``.

:class:`RayExecutor` submits one Ray task per match. The task runs on whichever node Ray
picks, opens that match's bots there (a launched bot is a child of the task's worker
process, through the sandbox's supervisor, which watches that worker's pid and a stdin
pipe), plays the match with the same runner as a local worker
(:func:`arena.executors.worker.play_one`), closes its bots and returns the outcome. So a
task killed, or a node lost, takes its bots with it, and Ray runs the task again
(``max_retries``, for a dead worker only: a match that raised is not played again). The
coordinator commits each outcome once per match id, so a match played twice never counts
twice.

In a tournament file: ``executor = "ray"``, ``ray_address = "auto"`` (the default),
``"HOST:PORT"``, ``"ray://HOST:10001"`` or ``"local"``, and a bot's ``ray_resources``
(:func:`arena.executors.open_executor` builds this executor from them).

Pinning: ``resources`` maps a bot's name to Ray custom resources (``{"gpu-bot":
{"gpu_box": 1}}``); a match's task asks for, per resource, the largest amount any of its
bots asks for, so it runs only on a node started with that resource (``ray start
--resources='{"gpu_box": 1}'``), which also bounds how many such matches run there at once.
Each task reserves ``num_cpus`` (1): a cluster of N CPUs plays N matches at once.
A task runs on one node, so before the first task each match's whole request (its CPUs
and its bots' resources) is checked against each alive node (``ray.nodes()``): a match
that no single node can run (2 of a resource two nodes have 1 each, two pinned bots whose
resources are on different nodes, more CPUs than any node has) is one line naming it and
its bots, not a wait for ever; while playing, a match waiting that no alive node can run
for :data:`INFEASIBLE_GRACE` seconds (its node was lost and none came back) is one line too.

Every node must see the tournament's files at the same paths (the bots' programs, the
records folder: one checkout on a shared file system), and have arena installed in the
interpreter Ray runs. Ray is imported only when :meth:`RayExecutor.connect` (or
:meth:`~RayExecutor.run`) is called. Before ``ray.init`` dials a cluster, a plain TCP
connect checks that something listens where Ray would dial (``ray.init`` retries an
address with no cluster for minutes): a wrong address is one line at once. While
``ray.init`` connects, file descriptor 2 goes to a temporary file (Ray's C++ core prints
its connection warnings there). Ray's own logs stay in its session folder
(``log_to_driver=False``): nothing a bot or a worker prints reaches the terminal, and bots' output goes to their log files as with any executor.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib
import logging
import os
import socket
import sys
import tempfile
from collections.abc import Iterator, Mapping
from typing import Any

import trio

from arena.text import escape_untrusted
from arena.tournament import Job, MatchOutcome, MatchSpec, TournamentError
from arena.tournament._not_started import start_note

MAX_RETRIES = 3
"""Times Ray runs a match's task again after its worker process (or node) died."""

PROBE_SECONDS = 10.0
"""How long the check that something listens at the cluster's address may take."""

WAIT_SECONDS = 0.2
"""How long one ``ray.wait`` call blocks (the granularity of a Ctrl-C while waiting)."""

INFEASIBLE_GRACE = 60.0
"""Seconds a submitted match may fit no alive node (a node lost, a new one starting) before
the tournament stops with one line."""

RECHECK_SECONDS = 5.0
"""How often, while matches wait, the alive nodes are checked against what they need."""

Resources = Mapping[str, Mapping[str, float]]
"""Bot name -> the Ray custom resources a node needs to run that bot's matches."""


def _ray(source: str = "<string>") -> Any:
    """The ``ray`` module, imported on first use; a TournamentError line when missing."""
    try:  # by name: mypy and the import graph see no Ray, which is an optional extra
        ray = importlib.import_module("ray")
    except ImportError:
        raise TournamentError(
            f"tournament.executor = 'ray' needs Ray: pip install 'arena[ray]' ({source})"
        ) from None
    return ray


def _bootstrap(address: str) -> tuple[str, int] | None:
    """The ``HOST:PORT`` that ``ray.init(address=...)`` will dial first, or ``None`` when it
    starts a Ray of its own (``"local"``). As Ray reads it (``"auto"``: ``RAY_ADDRESS`` or the
    cluster ``ray start`` began here); a ConnectionError or ValueError when there is none."""
    if address == "local":
        return None
    if address.startswith("ray://"):
        host, _, port = address.removeprefix("ray://").rpartition(":")
    else:
        services = importlib.import_module("ray._private.services")
        found = services.canonicalize_bootstrap_address(address)
        if found is None:
            return None
        host, _, port = str(found).rpartition(":")
    return host.strip("[]"), int(port)


def _probe(address: str, source: str) -> None:
    """Fail in one line unless a gRPC server answers where Ray would dial: ``ray.init``
    retries an address with no cluster for minutes, deaf to Ctrl-C (a Ray Client address:
    30 s), and one where another kind of server listens, for longer still."""
    try:
        where = _bootstrap(address)
    except ConnectionError as error:  # "auto": no RAY_ADDRESS, no `ray start` here
        why = "no Ray cluster is running on this machine" if address == "auto" else str(error)
        raise _unreachable(address, why, source) from None
    except ValueError as error:
        raise _unreachable(address, str(error), source) from None
    if where is None:
        return
    shown = f"{where[0]}:{where[1]}"
    try:
        with socket.create_connection(where, timeout=PROBE_SECONDS) as sock:
            grpc = os.environ.get("RAY_USE_TLS", "0") not in ("0", "") or _speaks_http2(sock)
    except (OSError, OverflowError) as error:  # OverflowError: a port past 65535 ($RAY_ADDRESS)
        why = getattr(error, "strerror", None) or type(error).__name__
        raise _unreachable(address, f"nothing answers at {shown} ({why})", source) from None
    if not grpc:
        raise _unreachable(
            address,
            f"{shown} answers, but not as a Ray cluster does (its port is 6379 unless "
            "`ray start --head --port` said otherwise; Ray Client is ray://HOST:10001)",
            source,
        )


_HTTP2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes(3) + b"\x04" + bytes(5)
"""HTTP/2's client preface and an empty SETTINGS frame (Ray's GCS and client are gRPC)."""


def _speaks_http2(sock: socket.socket) -> bool:
    """Whether the server answers the preface with its own: a SETTINGS frame, first thing.
    (With ``RAY_USE_TLS`` set, the check is skipped: a TLS server answers otherwise.)"""
    sock.sendall(_HTTP2_PREFACE)
    head = b""
    while len(head) < 9:  # a frame header: length (3), type (1), flags (1), stream (4)
        chunk = sock.recv(9 - len(head))
        if not chunk:
            return False
        head += chunk
    return head[3] == 0x04


@contextlib.contextmanager
def _stderr_aside() -> Iterator[None]:
    """File descriptor 2 into a temporary file while Ray connects: its C++ core prints
    warnings there (``rpc_client.h ... Failed to connect to GCS``) that would reach the
    terminal beside our one line. Called before any other thread writes to it."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with tempfile.TemporaryFile() as aside:
            os.dup2(aside.fileno(), 2)
            try:
                yield
            finally:
                with contextlib.suppress(ValueError, OSError):
                    sys.stderr.flush()
                os.dup2(saved, 2)
    finally:
        os.close(saved)


def _unreachable(address: str, why: str, source: str) -> TournamentError:
    line = escape_untrusted(why.strip().splitlines()[-1] if why.strip() else "")[:200]
    return TournamentError(
        f"cannot reach a Ray cluster at ray_address = {address!r}: {line}; start one with "
        "`ray start --head` (then `ray start --address=HEAD:6379` on each other machine) "
        f"or set tournament.ray_address ({source})"
    )


def task_resources(spec: MatchSpec, resources: Resources) -> dict[str, float]:
    """The custom resources ``spec``'s task asks for: per resource, the most any seat's bot
    asks for (two pinned bots on one box need that box once, not twice)."""
    wanted: dict[str, float] = {}
    for name in spec.seats:
        for resource, amount in resources.get(name, {}).items():
            wanted[resource] = max(wanted.get(resource, 0.0), float(amount))
    return wanted


def run_task(spec_json: str) -> dict[str, Any]:
    """The body of a match's Ray task: play ``spec_json`` here, return what happened.

    Returns ``{"outcome": ..., "notes": [...], "node": ID, "pid": PID}`` or, for an error
    that stops the tournament (a records folder that cannot be written), ``{"failed": LINE}``.
    """
    ray = importlib.import_module("ray")  # present: this runs inside a Ray worker
    spec = MatchSpec.from_json(spec_json)
    where = {"node": ray.get_runtime_context().get_node_id(), "pid": os.getpid()}
    try:
        outcome, notes = trio.run(_play_here, spec)
    except TournamentError as error:
        return {"failed": str(error), **where}
    return {"outcome": outcome.to_dict(), "notes": notes, **where}


async def _play_here(spec: MatchSpec) -> tuple[MatchOutcome, list[str]]:
    """Open the match's bots in this process, play it, close them (imports the worker's
    runner here: the coordinator never needs it)."""
    from arena.executors.worker import WorkerBots, play_one

    async with contextlib.AsyncExitStack() as stack:
        bots = WorkerBots(stack, f"ray-{os.getpid()}")
        outcome = await play_one(spec, bots)
        return outcome, list(bots.notes)


def task_request(spec: MatchSpec, resources: Resources, num_cpus: float) -> dict[str, float]:
    """Everything ``spec``'s task needs from the one node it runs on: its CPUs and the
    custom resources of :func:`task_resources`."""
    wanted = task_resources(spec, resources)
    if num_cpus > 0:
        wanted["CPU"] = max(wanted.get("CPU", 0.0), float(num_cpus))
    return wanted


def alive_nodes(nodes: list[dict[str, Any]]) -> list[dict[str, float]]:
    """The total resources of each alive node of a ``ray.nodes()`` answer."""
    return [dict(node.get("Resources") or {}) for node in nodes if node.get("Alive")]


def unplaceable(
    specs: list[MatchSpec], resources: Resources, num_cpus: float, nodes: list[dict[str, float]]
) -> tuple[MatchSpec, dict[str, float]] | None:
    """The first spec (and its request) that no node of ``nodes`` can run alone."""
    seen: set[tuple[tuple[str, float], ...]] = set()
    for spec in specs:
        wanted = task_request(spec, resources, num_cpus)
        key = tuple(sorted(wanted.items()))
        if key in seen:
            continue
        seen.add(key)
        if not any(all(node.get(r, 0.0) >= n for r, n in wanted.items()) for node in nodes):
            return spec, wanted
    return None


def _no_node_line(
    spec: MatchSpec, wanted: Mapping[str, float], nodes: list[dict[str, float]]
) -> str:
    asks = ", ".join(f"{r} x {n:g}" for r, n in sorted(wanted.items()))
    bots = ", ".join(repr(name) for name in dict.fromkeys(spec.seats))
    names = sorted(wanted)
    shown = (
        "; ".join(", ".join(f"{r} {node.get(r, 0.0):g}" for r in names) for node in nodes)
        or "none alive"
    )
    return escape_untrusted(
        f"match {spec.key} (bots {bots}) needs {asks} on one Ray node, and no alive node has "
        f"all of that (the nodes have: {shown}); start such a node (`ray start --address=... "
        "--num-cpus=... --resources=...`) or change the bots' ray_resources",
        one_line=True,
    )


@dataclasses.dataclass(frozen=True, slots=True)
class Placement:
    """Where a match's task ran the time it was recorded (for tests and logs)."""

    node: str
    pid: int


class RayExecutor:
    """Plays a tournament's matches as Ray tasks (see the module docstring).

    ``address``: ``"auto"`` (the cluster ``ray start`` started on this machine), a
    cluster's address (``"10.0.0.5:6379"``), or ``None`` for a private Ray on this machine
    for this run. When Ray is already connected in this process, that connection is used
    and kept. ``resources`` pins bots to nodes; ``num_cpus`` is what each match's task
    reserves (its dealer and its bots); ``max_in_flight`` bounds the tasks submitted at once
    (default: twice the cluster's CPUs).
    """

    def __init__(
        self,
        address: str | None = "auto",
        *,
        resources: Resources | None = None,
        num_cpus: float = 1.0,
        max_retries: int = MAX_RETRIES,
        max_in_flight: int | None = None,
        source: str = "<string>",
    ) -> None:
        if max_retries < 0:
            raise ValueError(f"max_retries must be at least 0, got {max_retries}")
        self.address = address
        self.resources: dict[str, dict[str, float]] = {
            name: dict(wanted) for name, wanted in (resources or {}).items()
        }
        self.num_cpus = num_cpus
        self.max_retries = max_retries
        self.max_in_flight = max_in_flight
        self.source = source
        """The tournament file, for messages."""
        self.placements: dict[str, Placement] = {}
        """Match key -> the node and worker pid whose outcome was delivered."""
        self._started = False

    async def run(self, job: Job) -> None:
        remote = [spec.key for spec in job.specs if spec.remote]
        if remote:
            raise TournamentError(
                f"match {remote[0]} has a bot that dials in: remote bots play only in the "
                "coordinator process (use workers = 1 with `arena serve`)"
            )
        ray = _ray(self.source)
        opened = not ray.is_initialized()
        if opened:
            self.connect()
        try:
            await self._run_tasks(ray, job)
        finally:
            if opened:
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(self.close)

    def connect(self) -> None:
        """Connect to (or start) Ray now, before anything is recorded; TournamentError in
        one line when Ray is missing or no cluster answers. A connection this process
        already has is used and kept. Call it in the main thread (``ray.init`` installs
        signal handlers); :meth:`close` ends what it started."""
        ray = _ray(self.source)
        if ray.is_initialized():
            return
        if self.address is not None:
            _probe(self.address, self.source)
        try:
            with _stderr_aside():
                ray.init(
                    address=self.address,
                    log_to_driver=False,
                    logging_level=logging.ERROR,
                    include_dashboard=False,
                    configure_logging=True,
                )
        except (ConnectionError, RuntimeError, ValueError, ray.exceptions.RayError) as error:
            where = "a private Ray on this machine" if self.address is None else self.address
            line = escape_untrusted(str(error).strip().splitlines()[-1] if str(error) else "")
            raise TournamentError(
                f"cannot start or reach Ray ({where}): {line[:200]}; start a cluster with "
                "`ray start --head` or set tournament.ray_address"
            ) from None
        self._started = True

    def close(self) -> None:
        """Disconnect from (or stop) the Ray that :meth:`connect` started, if it did."""
        if self._started:
            self._started = False
            _ray(self.source).shutdown()

    async def _run_tasks(self, ray: Any, job: Job) -> None:
        remote = ray.remote(
            max_retries=self.max_retries, retry_exceptions=False, num_cpus=self.num_cpus
        )(run_task)
        have = ray.cluster_resources()
        nodes = alive_nodes(ray.nodes())
        self._check_resources(job, nodes)
        limit = self.max_in_flight or max(1, 2 * int(have.get("CPU", 1)))
        queue = list(reversed(job.specs))
        pending: dict[Any, MatchSpec] = {}
        failed: dict[str, tuple[str, int]] = {}
        said: set[str] = set()
        watch = _Feasible(self, ray)
        try:
            while queue or pending:
                while queue and len(pending) < limit:
                    spec = queue.pop()
                    options = {"resources": task_resources(spec, self.resources)}
                    pending[remote.options(**options).remote(spec.to_json())] = spec
                    started = getattr(job.observers, "on_match_started", None)
                    if started is not None:  # submitted: Ray starts it when a slot is free
                        started(spec.match_id, list(spec.seats), spec.match_settings())
                wait = functools.partial(
                    ray.wait, list(pending), num_returns=1, timeout=WAIT_SECONDS
                )
                ready, _ = await trio.to_thread.run_sync(wait, abandon_on_cancel=True)
                if not ready:
                    await watch.check(list(pending.values()))
                for ref in ready:
                    spec = pending.pop(ref)
                    answer = await trio.to_thread.run_sync(self._answer, ray, ref, spec)
                    await self._deliver(job, spec, answer, failed, said)
        finally:
            for ref in pending:  # Ctrl-C or an error: their workers die, and their bots
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
        for name, (tail, count) in sorted(failed.items()):
            job.note(start_note(name, tail, count, job.config.source))

    def _check_resources(self, job: Job, nodes: list[dict[str, float]]) -> None:
        """A match no single alive node can run would wait forever: one line instead (a
        pinned bot whose resource no node has enough of, then any match's whole request)."""
        playing = {name for spec in job.specs for name in spec.seats}
        for name in sorted(playing & set(self.resources)):
            for resource, amount in sorted(self.resources[name].items()):
                if max((node.get(resource, 0.0) for node in nodes), default=0.0) < amount:
                    raise TournamentError(
                        f"bot {name!r} needs Ray resource {resource!r} x {amount:g}, which no "
                        f"node of the cluster has (start one with `ray start --address=... "
                        f"--resources='{{\"{resource}\": {amount:g}}}'`)"
                    )
        found = unplaceable(list(job.specs), self.resources, self.num_cpus, nodes)
        if found is not None:
            raise TournamentError(_no_node_line(*found, nodes))

    def _answer(self, ray: Any, ref: Any, spec: MatchSpec) -> dict[str, Any]:
        """The task's answer; a TournamentError line when it failed past its retries."""
        try:
            answer: dict[str, Any] = ray.get(ref)
        except ray.exceptions.RayTaskError as error:  # a bug in the runner: say where
            last = str(error).strip().splitlines()[-1] if str(error) else type(error).__name__
            raise TournamentError(
                f"match {spec.key}: its Ray task failed ({escape_untrusted(last)[:200]}); "
                "see the worker logs in Ray's session folder (/tmp/ray/session_latest/logs)"
            ) from None
        except ray.exceptions.RayError as error:  # the worker or node died every time
            raise TournamentError(
                f"match {spec.key}: its Ray worker died {self.max_retries + 1} times "
                f"({type(error).__name__}); nothing of it was recorded, "
                f"`arena tournament resume {spec.source}` plays it again"
            ) from None
        return answer

    async def _deliver(
        self,
        job: Job,
        spec: MatchSpec,
        answer: dict[str, Any],
        failed: dict[str, tuple[str, int]],
        said: set[str],
    ) -> None:
        if "failed" in answer:
            raise TournamentError(str(answer["failed"]))
        for note in answer["notes"]:
            if note not in said:
                said.add(note)
                job.note(str(note))
        try:
            outcome = MatchOutcome.from_dict(answer["outcome"])
        except (KeyError, ValueError) as error:  # not what run_task returns: a broken install
            why = escape_untrusted(str(error), one_line=True)[:200]
            raise TournamentError(
                f"match {spec.key}: its Ray task answered badly ({why})"
            ) from None
        for name, tail in outcome.not_started.items():
            _, count = failed.get(name, (tail, 0))
            failed[name] = (tail, count + 1)
        self.placements[spec.key] = Placement(str(answer["node"]), int(answer["pid"]))
        await job.deliver(spec, outcome)


class _Feasible:
    """While matches wait: every :data:`RECHECK_SECONDS`, whether each still fits an alive
    node; one that has fit none for :data:`INFEASIBLE_GRACE` seconds stops the tournament
    (Ray would keep it pending for ever)."""

    def __init__(self, executor: RayExecutor, ray: Any) -> None:
        self._executor = executor
        self._ray = ray
        self._next = trio.current_time() + RECHECK_SECONDS
        self._since: float | None = None

    async def check(self, pending: list[MatchSpec]) -> None:
        now = trio.current_time()
        if now < self._next or not pending:
            return
        self._next = now + RECHECK_SECONDS
        nodes = alive_nodes(await trio.to_thread.run_sync(self._ray.nodes))
        executor = self._executor
        found = unplaceable(pending, executor.resources, executor.num_cpus, nodes)
        if found is None:
            self._since = None
            return
        if self._since is None:
            self._since = now
        if now - self._since >= INFEASIBLE_GRACE:
            raise TournamentError(_no_node_line(*found, nodes))
