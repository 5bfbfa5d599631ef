"""Launch a bot as a child process, in its sandbox, and drive it over gRPC.

The arena picks where the bot listens (a unix socket in a fresh 0700 folder by default,
or a free TCP port on 127.0.0.1) and tells the bot in two ways: the environment variable
``ARENA_BOT_ADDRESS`` and the placeholders ``{address}`` and ``{port}`` in its command.
It then waits for the bot's health check, failing fast (with the escaped tail of the
bot's stderr) if the process exits first. A TCP endpoint must then be served by the
launched process tree alone (:mod:`arena.sandbox._endpoint`).

``sandbox`` is resolved at start: ``off`` runs the command itself; at ``L0`` and up
:mod:`arena.sandbox` builds the supervisor's command (:mod:`arena.sandbox._seatbox`),
which sets the rlimits, starts the bot (in bubblewrap at L1+, as the seat's uid and in
its cgroups at L2) and kills every descendant when it stops. This module is the dealer's
side: it asks the sandbox for a started process and its address, then speaks gRPC.

The child is started with ``trio.lowlevel.open_process`` (``subprocess`` underneath:
never ``os.fork``, which hangs with gRPC running, and no ``preexec_fn``) in a new
session; stopping it (SIGTERM, a grace period, SIGKILL) reaches its process group, and
it is always waited for. Its stdout and stderr are copied into capped log files.

A launched bot can tell when the arena is gone: its stdin is a pipe the arena never
writes to (end-of-file means the arena died), and at ``off``/``L0`` ``ARENA_PARENT_PID``
holds the arena's pid. The SDK and the Node example bot stop on either sign.

A launched bot needs an owner for its process and log tasks: use
``async with open_bot(...) as driver``, or call :meth:`LaunchedBot.start` with a
nursery and :meth:`LaunchedBot.aclose` yourself.
"""

from __future__ import annotations

import functools
import logging
import os
import shlex
import signal
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

import trio

from arena.dealer._grpc import BotStartError, GrpcBot, GrpcConnection
from arena.dealer._launched import LaunchedConnection
from arena.dealer._seat import SeatBrokenError, SeatConnection
from arena.dealer._settings import STARTUP_TIMEOUT
from arena.sandbox._endpoint import foreign_listener, process_tree, tree_cpu_seconds
from arena.sandbox._leftovers import remove_tree
from arena.sandbox._process import (
    Log,
    describe_exit,
    log_paths,
    parse_command,
    signal_group,
    stderr_tail,
)
from arena.sandbox._sandbox import SANDBOX_CHOICES, BotLimits, hides_paths, resolve_sandbox
from arena.sandbox._seatbox import SeatBox, sweep_leftovers
from arena.sandbox._start import BotCommand, plan_start

EXIT_WAIT = 0.5
"""Seconds a broken stream waits for the bot's process to exit, to record how it ended."""
PIN_POLL = 0.01
"""Seconds between looks for a starting bot's socket (an ``lstat``; start-up only)."""

Transport = Literal["tcp", "unix"]
_LOG = logging.getLogger(__name__)


class LaunchedBot:
    """A driver that starts ``command`` as a bot process and plays it over gRPC.

    ``command``: a list of arguments or a shell-like string (split with :mod:`shlex`;
    no shell runs); ``{address}`` and ``{port}`` in it are replaced. ``env`` adds to
    the bot's clean environment (at ``off``: to the dealer's); ``ARENA_BOT_ADDRESS`` is
    always set. ``transport``: ``"unix"`` (a socket in a fresh 0700 folder, removed at
    close; ``{port}`` is then an error) or ``"tcp"`` (127.0.0.1, a free port; at L1+ only
    with ``limits.share_network``). ``sandbox``: a choice of ``SANDBOX_CHOICES``,
    resolved at start (``sandbox_layer`` then says which layer is in force);
    ``limits``: :class:`BotLimits`; ``hidden_paths``: paths no bot may see (records, the
    database), masked at L1+ (at ``off``/``L0`` they cannot be: see ``records_visible``).
    ``workdir`` resolves the command's relative paths and is mounted read-only at L1+ as
    the bot's folder unless ``mount_workdir`` is False (a tournament file's folder, which
    may hold other bots: then only the program's and the script's folders are mounted).
    ``log_dir``: where ``<name>.stdout.log`` and ``<name>.stderr.log`` go (overwritten;
    default: a fresh temporary directory, kept). ``startup_timeout`` bounds the wait for
    the health check; ``stop_timeout`` is the grace between SIGTERM and SIGKILL.
    ``max_restarts``: a bot whose process died is started again, at most this many times,
    when the dealer next connects (the logs of each earlier run are kept as
    ``<name>.stderr.<n>.log``), so one crash costs a bot a few hands, not a tournament.
    ``private_copy`` (duplicate instance k > 0): at L1+ its folders and ``binds`` are a
    copy of its own, made at each start (no page cache shared: :mod:`~._botcopy`).
    """

    def __init__(
        self,
        name: str,
        command: str | Sequence[str],
        *,
        workdir: str | os.PathLike[str] | None = None,
        env: Mapping[str, str] | None = None,
        transport: Transport = "unix",
        startup_timeout: float = STARTUP_TIMEOUT,
        stop_timeout: float = 2.0,
        log_dir: str | os.PathLike[str] | None = None,
        log_limit_bytes: int = 1_000_000,
        memory_limit_mb: int | None = None,
        cpu_seconds: int | None = None,
        max_message_bytes: int = 1 << 20,
        connect_timeout: float = 5.0,
        max_restarts: int = 3,
        sandbox: str = "auto",
        limits: BotLimits | None = None,
        hidden_paths: Sequence[str | os.PathLike[str]] = (),
        mount_workdir: bool = True,
        private_copy: bool = False,
    ) -> None:
        if transport not in ("tcp", "unix"):
            raise ValueError(f"transport must be 'tcp' or 'unix', not {transport!r}")
        if sandbox not in SANDBOX_CHOICES:
            raise ValueError(
                f"sandbox must be one of {', '.join(SANDBOX_CHOICES)}, not {sandbox!r}"
            )
        self.sandbox = sandbox
        self.sandbox_layer = ""  # the layer in force, once started
        self.limits = limits if limits is not None else BotLimits()
        self.hidden_paths = tuple(str(path) for path in hidden_paths)
        self._box: SeatBox | None = None
        self._port = ""
        self.name = name
        self.command = parse_command(command)
        if transport == "unix" and any("{port}" in arg for arg in self.command):
            raise BotStartError(f"{name}: {{port}} in the command needs transport='tcp'")
        self.workdir = workdir
        self.mount_workdir = mount_workdir  # False: workdir only resolves the command's paths
        self.private_copy = private_copy
        self.env = dict(env or {})
        self.transport = transport
        self.startup_timeout = startup_timeout
        self.stop_timeout = stop_timeout
        self._no_grace = False
        self.log_dir = Path(log_dir) if log_dir is not None else None
        self.log_limit_bytes = log_limit_bytes
        self.memory_limit_mb = memory_limit_mb
        self.cpu_limit_seconds = cpu_seconds
        self.max_message_bytes = max_message_bytes
        self.connect_timeout = connect_timeout
        self.max_restarts = max_restarts
        self._init_run_state()

    def _init_run_state(self) -> None:
        """What a start sets: the process, its address, logs and restarts."""
        self.address: str | None = None
        self.process: trio.Process | None = None
        self._pgid: int | None = None  # the process group, signalled even after its leader died
        self.stdout_log: Path | None = None
        self.stderr_log: Path | None = None
        self._grpc: GrpcBot | None = None
        self._logs: list[Log] = []
        self._socket_dir: str | None = None
        self._closed = False
        self.restarts = 0
        self._nursery: trio.Nursery | None = None
        self._restart_lock = trio.Lock()

    def __repr__(self) -> str:
        return f"LaunchedBot({self.name!r}, {shlex.join(self.command)!r}, address={self.address!r})"

    # --- start -------------------------------------------------------------------

    def _prepare(self) -> tuple[list[str], dict[str, str], str | os.PathLike[str] | None]:
        """The sandbox's plan (:func:`~arena.sandbox._start.plan_start`): the command,
        environment and folder to start, and the address the bot will serve."""
        command = BotCommand(
            self.name,
            self.command,
            workdir=self.workdir,
            env=self.env,
            transport=self.transport,
            limits=self.limits,
            hidden_paths=self.hidden_paths,
            mount_workdir=self.mount_workdir,
            private_copy=self.private_copy,  # a duplicate instance's own folders
            memory_limit_mb=self.memory_limit_mb,
            cpu_seconds=self.cpu_limit_seconds,
            grace=self.stop_timeout,
        )
        plan = plan_start(command, self.sandbox_layer)
        self._box, self._socket_dir = plan.box, plan.socket_dir
        self.address, self._port = plan.address, plan.port
        return plan.argv, plan.env, plan.cwd

    @property
    def records_visible(self) -> bool:
        """Whether this bot could read its ``hidden_paths`` (``off`` and ``L0`` cannot hide them)."""
        layer = self.sandbox_layer or resolve_sandbox(self.sandbox)
        return bool(self.hidden_paths) and not hides_paths(layer)

    def cpu_seconds(self) -> float | None:
        """CPU time (user + system) of the bot's whole process tree so far, None if unknown.

        The seat's cgroup at L2 and L1 as root (every process it ever ran, setsid or not,
        reaped by the kernel or not), else the live tree under the launched process in
        ``/proc`` (with what each has reaped).
        """
        if self._box is not None and self._box.cgroup is not None:
            return self._box.cgroup.cpu_seconds()
        process = self.process
        if process is None or process.poll() is not None:
            return None
        return tree_cpu_seconds(process.pid)

    def limit_breach(self) -> str | None:
        """``"MEMORY_LIMIT"`` or ``"PROCESS_LIMIT"`` if the seat's cgroup (L2) recorded a
        breach since the last call, else None."""
        if self._box is None or self._box.cgroup is None:
            return None
        return self._box.cgroup.breach()

    def on_clock(self, deciding: bool) -> None:
        """One of the bot's decisions started (True) or ended on the CPU clock: its seat's
        cgroup weighs double meanwhile (issue 19 item 6); nothing without one."""
        if self._box is not None and self._box.cgroup is not None:
            self._box.cgroup.on_clock(deciding)

    def _check_endpoint(self) -> None:
        """A TCP bot's port must be served by its own process tree alone (not at ``off``)."""
        if self.sandbox_layer == "off" or self.transport != "tcp" or self.process is None:
            return
        why = foreign_listener(int(self._port), self.process.pid)
        if why is not None:
            raise BotStartError(f"{self.name}: {why}")

    def _prepare_logs(self) -> None:
        """Set the paths of the bot's logs; a restart keeps the old ones (:func:`log_paths`)."""
        self.stdout_log, self.stderr_log = log_paths(self.log_dir, self.name, self.restarts)

    async def start(self, nursery: trio.Nursery) -> None:
        """Start the process (its log tasks go in ``nursery``) and wait until it is healthy.

        Raises :class:`BotStartError` if it cannot run, exits first, or stays unhealthy
        past ``startup_timeout``; the process is stopped before the error propagates.
        """
        if self.process is not None:
            raise RuntimeError(f"{self.name}: already started")
        self._nursery = nursery
        self.sandbox_layer = resolve_sandbox(self.sandbox)
        try:  # what killed arena processes left; one that cannot go blocks no start
            await trio.to_thread.run_sync(sweep_leftovers)
        except Exception as error:
            _LOG.warning("sweeping leftovers failed: %r", error)
        try:
            argv, env, cwd = await trio.to_thread.run_sync(self._prepare)  # copies folders
            assert self.address is not None  # set by _prepare
            self._prepare_logs()
        except BaseException:
            self._release_sandbox()
            raise
        try:
            self.process = await trio.lowlevel.open_process(
                argv,
                stdin=subprocess.PIPE,  # never written: end-of-file tells the bot the arena died
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env=env,
                start_new_session=True,
            )
        except OSError as error:
            self._release_sandbox()
            raise BotStartError(f"{self.name}: cannot run {argv[0]!r}: {error}") from error
        self._pgid = self.process.pid  # it leads a new session, so its group has its pid
        assert self.stdout_log is not None and self.stderr_log is not None  # _prepare_logs
        stdout, stderr = (
            Log(self.stdout_log, self.log_limit_bytes),
            Log(self.stderr_log, self.log_limit_bytes),
        )
        self._logs = [stdout, stderr]
        assert self.process.stdout is not None and self.process.stderr is not None
        nursery.start_soon(stdout.copy, self.process.stdout)
        nursery.start_soon(stderr.copy, self.process.stderr)
        try:
            await self._wait_started()
            self._check_endpoint()
        except BaseException:
            await self.aclose()
            raise

    async def _pin_endpoint(self, process: trio.Process, deadline: float) -> bool:
        """Wait for a sandboxed bot's unix socket, pin and check it (issue 19 item 3):
        from then on ``address`` is the dealer's own link to it, which the bot cannot
        redirect (:class:`~arena.sandbox._seatfs.SeatFolder`). False past ``deadline``;
        :class:`BotStartError` for a socket that is not the bot's own."""
        box = self._box
        if box is None or box.socket_dir is None:
            return True  # off (no sandbox) or TCP (checked by _check_endpoint)
        tree = functools.partial(process_tree, process.pid)
        while (address := box.pin_endpoint(tree)) is None:
            if trio.current_time() >= deadline:
                return False
            await trio.sleep(PIN_POLL)
        self.address = address
        return True

    async def _wait_started(self) -> None:
        process = self.process
        assert process is not None
        unhealthy: BotStartError | None = None
        refused: BotStartError | None = None
        async with trio.open_nursery() as nursery:

            async def watch_exit() -> None:
                await process.wait()
                nursery.cancel_scope.cancel()

            nursery.start_soon(watch_exit)
            deadline = trio.current_time() + self.startup_timeout
            try:
                pinned = await self._pin_endpoint(process, deadline)
            except BotStartError as error:
                refused, pinned = error, False
            if not pinned and refused is None:
                unhealthy = BotStartError(
                    f"{self.name} at {self.address} not healthy within "
                    f"{self.startup_timeout:g} s (last: nothing listens on its socket)"
                )
            if pinned:
                assert self.address is not None
                grpc_bot = self._grpc = GrpcBot(
                    self.name,
                    self.address,
                    max_message_bytes=self.max_message_bytes,
                    connect_timeout=self.connect_timeout,
                )
                try:
                    await grpc_bot.wait_healthy(max(0.1, deadline - trio.current_time()))
                except BotStartError as error:
                    unhealthy = error
            nursery.cancel_scope.cancel()
        if refused is not None:  # before "exited": a bot refused may exit at once
            raise BotStartError(f"{refused}{await self._stderr_tail()}")
        if process.poll() is not None:
            raise BotStartError(
                f"{self.name}: {describe_exit(process.returncode)} before it was healthy"
                + await self._stderr_tail()
            )
        if unhealthy is not None:
            raise BotStartError(f"{unhealthy}{await self._stderr_tail()}")

    async def _stderr_tail(self, lines: int = 10) -> str:
        return await stderr_tail(self._logs, self.process, lines)

    # --- BotDriver -------------------------------------------------------------

    async def connect(self) -> SeatConnection:
        """A Play stream, restarting the process first if it died (see ``max_restarts``).

        The process is watched while the bot is dialled: a crashed bot's socket closes a
        few milliseconds (a big process: much longer) before its process can be reaped,
        so a dial that begins in between would otherwise wait ``connect_timeout`` on a
        dead address. If the process exits meanwhile, it is restarted and dialled again.
        Raises :class:`SeatBrokenError` once it is dead with no restarts left.
        """
        while True:
            await self._restart_if_dead()
            process, grpc_bot = self.process, self._grpc
            if process is None or grpc_bot is None:
                raise SeatBrokenError(f"{self.name}: not running")
            replaced = self._box.endpoint_replaced() if self._box is not None else None
            if replaced is not None:  # it still plays only the pinned socket: say so (item 3)
                raise SeatBrokenError(
                    f"{self.name}: {replaced}; the dealer dials only the socket it checked"
                )
            connection = await self._dial(process, grpc_bot)
            if connection is not None:
                return LaunchedConnection(self, process, connection)

    async def _restart_if_dead(self) -> None:
        if self.process is None or self._grpc is None:
            raise SeatBrokenError(f"{self.name}: not started")
        if self.process.poll() is None:
            return
        async with self._restart_lock:  # several tables may find it dead at once
            if self.process is None or self.process.poll() is not None:
                exited = (
                    f"{self.name}: the process "
                    f"{describe_exit(self.process.returncode if self.process else None)}"
                    + await self._stderr_tail()
                )
                if self._nursery is None or self.restarts >= self.max_restarts:
                    raise SeatBrokenError(exited)
                await self._restart(exited)

    @staticmethod
    async def _dial(process: trio.Process, grpc_bot: GrpcBot) -> GrpcConnection | None:
        """``grpc_bot.connect()``, or None if ``process`` exits first."""
        connected: list[GrpcConnection] = []
        failed: list[SeatBrokenError] = []
        async with trio.open_nursery() as nursery:

            async def dial() -> None:
                try:
                    connected.append(await grpc_bot.connect())
                except SeatBrokenError as error:
                    failed.append(error)
                nursery.cancel_scope.cancel()

            async def watch_exit() -> None:
                await process.wait()
                nursery.cancel_scope.cancel()

            nursery.start_soon(watch_exit)
            nursery.start_soon(dial)
        if connected:
            return connected[0]  # if it is dying, the stream breaks and says how it ended
        if process.poll() is not None:
            return None
        raise failed[0]

    async def exit_description(self, process: trio.Process, timeout: float = EXIT_WAIT) -> str:
        """``"; the process exited with status 1; stderr ends: ..."`` once ``process``
        has ended (waiting up to ``timeout``, shielded), else ``""``."""
        with trio.CancelScope(shield=True):
            with trio.move_on_after(timeout):
                await process.wait()
            if process.poll() is None:
                return ""
            ended = f"; the process {describe_exit(process.returncode)}"
            if process is not self.process:  # restarted meanwhile: the logs are the new run's
                return ended
            return ended + await self._stderr_tail(3)
        return ""  # not reached: nothing cancels a shielded scope, so it swallows nothing

    async def _restart(self, why: str) -> None:
        """Start the process again after it died (see ``max_restarts``)."""
        assert self._nursery is not None
        await self.aclose()
        self.restarts += 1
        self._closed = False
        self.process = None
        self._grpc = None
        self._logs = []
        try:
            await self.start(self._nursery)
        except BotStartError as error:
            raise SeatBrokenError(f"{why}\nrestart {self.restarts} failed: {error}") from None

    async def aclose(self) -> None:
        """Close the channel, stop the process group (SIGTERM, grace, SIGKILL), reap it."""
        if self._closed:
            return
        self._closed = True
        with trio.CancelScope(shield=True):
            if self._grpc is not None:
                await self._grpc.aclose()
            process = self.process
            if process is not None:
                if not self._no_grace and self._signal(signal.SIGTERM):
                    # the supervisor has the same grace, then kills and reaps: give it time
                    with trio.move_on_after(self.stop_timeout + (1.0 if self._box else 0.0)):
                        await process.wait()
                        while self._signal(0):  # the rest of the group
                            await trio.sleep(0.05)
                if self._signal(signal.SIGKILL):
                    await process.wait()
                # a grandchild may still hold the pipes open: stop copying after a moment
                with trio.move_on_after(1.0):
                    for log in self._logs:
                        await log.done.wait()
                for stream in (process.stdin, process.stdout, process.stderr):
                    if stream is not None:
                        await stream.aclose()
            if self._box is not None:  # L2: whatever is left in the cgroup is killed here
                await trio.to_thread.run_sync(self._release_sandbox)
            self._release_sandbox()

    def stop_without_grace(self) -> None:
        """The dealer sat the bot out for time: it is busy in a decision nobody waits for,
        so its stop skips the SIGTERM grace (SIGKILL at once: its match is over, and a
        league should not wait ``stop_timeout`` for its sleep to end)."""
        self._no_grace = True

    def _signal(self, signum: int) -> bool:
        """Signal the bot's process group (:func:`signal_group`); False if nobody is left."""
        return signal_group(self.process, self._pgid, signum, boxed=self._box is not None)

    def _release_sandbox(self) -> None:
        """Give back the sandbox's folders, uid and cgroup (and the unix socket's folder)."""
        if self._box is not None:
            self._box.release()
        self._remove_socket_dir()

    def _remove_socket_dir(self) -> None:
        if self._socket_dir is not None:
            remove_tree(self._socket_dir)  # any depth, never through a planted link
            self._socket_dir = None
