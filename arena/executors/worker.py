"""A dealer worker process: ``python -m arena.executors.worker --name worker-1``.

Started by :class:`arena.executors.ProcessExecutor` with :mod:`subprocess` (never forked
from a process running gRPC). It speaks JSON lines on its stdin and stdout:

- it sends ``{"ready": PID}`` once, then ``{"alive": N}`` every :data:`HEARTBEAT`
  seconds (the coordinator kills a worker silent for much longer), and for each match ``{"started": ID}``,
  ``{"note": TEXT}`` (said once per worker) and ``{"done": ID, "outcome": {...}, "live":
  {NAME: N}}`` (``live``: the launched bots it has running after the match, and how many
  instances each), or ``{"failed": ID, "error": LINE}`` for an error that stops the
  tournament (disk full);
- it reads ``{"play": SPEC, "release": [NAME, ...]}`` (a
  :class:`~arena.tournament.MatchSpec` as a dict; ``release``, optional: bots to stop
  before playing, because they have no match left or to make room); the end of its stdin
  (the coordinator closed it, or died) ends it, as does SIGTERM.

It plays one match at a time with its own bots, each opened the first time a match needs
it and kept until the coordinator releases it (issue 12 item 5: the coordinator knows
which matches are left, and picks for each worker matches whose bots it has running) or
the worker ends: a launched bot is its own process (its supervisor watches this process
and kills the bot when it dies, even by SIGKILL), a built-in one is an object in this
process. ``--max-live-bots N`` bounds its launched bot processes: if a match would need
more than the releases leave room for, it stops the bots it used least recently itself.
Under duplicate dealing each bot has one instance per rotation (instance ``k`` plays only
table ``k``, issue 9; a released instance started again is a fresh process for the same
table). Launched bots' logs go to ``<records>/bots/<worker name>/`` (an earlier run's as
``NAME.stderr.run-N.log``). A match's folder is emptied before it is played: what is
there is a half-written one from a worker that died; a spec whose key is not one safe
folder name, or whose folder is not ``<records>/<key>``, is refused (it came from a
database someone else may write: its folder is never deleted).

Its own stdout is kept for the protocol: anything else that prints lands on stderr.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import itertools
import json
import os
import shutil
import signal
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import trio

from arena.dealer import BotDriver, BotStartError
from arena.text import escape_untrusted
from arena.tournament import MatchOutcome, MatchSpec, TournamentError, open_builtin_bot, play_match
from arena.tournament._bounds import BoundError, check_tournament_name
from arena.tournament._budget import counts, keep_logs
from arena.tournament._errors import expected_error
from arena.tournament._not_started import error_tail

HEARTBEAT = 2.0
"""Seconds between a worker's ``{"alive": N}`` lines (see ``_pool.SILENCE_TIMEOUT``)."""


class WorkerBots:
    """This worker's bots: each instance opened on first need and kept until it is
    released or the worker ends; at most ``max_live`` launched bot processes (``None``:
    no bound). Every bot is opened and closed in the task that plays the matches."""

    def __init__(
        self, stack: contextlib.AsyncExitStack, name: str, *, max_live: int | None = None
    ) -> None:
        self._stack = stack
        self._name = name
        self._max_live = max_live
        self._open: dict[tuple[str, int], BotDriver] = {}
        self._stacks: dict[str, contextlib.AsyncExitStack] = {}
        self._counted: set[str] = set()
        self._used: dict[str, int] = {}  # the match count at each bot's last use
        self._matches = 0
        self._stopped: dict[tuple[str, int], BotDriver] = {}  # for their logs, on a restart
        self._runs: collections.Counter[tuple[str, int]] = collections.Counter()
        self._failed: dict[str, str] = {}
        self.notes: list[str] = []

    def live(self) -> dict[str, int]:
        """The launched bots running, and how many instances each."""
        found: collections.Counter[str] = collections.Counter()
        for name, _ in self._open:
            if name in self._counted:
                found[name] += 1
        return dict(found)

    async def release(self, names: Sequence[str]) -> None:
        """Stop every instance of these bots (each is started again if a match needs it)."""
        for name in names:
            for key in [key for key in self._open if key[0] == name]:
                self._stopped[key] = self._open.pop(key)
            stack = self._stacks.pop(name, None)
            if stack is not None:
                await stack.aclose()

    async def tables(self, spec: MatchSpec) -> tuple[list[list[BotDriver]], dict[str, str]]:
        """The match's tables (``tables[k][i]``), or the bots that did not start and why."""
        count = len(spec.seats) if spec.duplicate else 1
        bots = {bot.name: bot for bot in spec.bot_specs()}
        self._matches += 1
        for name, bot in bots.items():
            self._used[name] = self._matches
            if counts(bot.kind):
                self._counted.add(name)
        await self._make_room(spec, count)
        for name in sorted(bots):
            for k in range(count):
                if name not in self._failed and (name, k) not in self._open:
                    await self._start(spec, bots[name], k)
        missing = {name: self._failed[name] for name in spec.seats if name in self._failed}
        if missing:
            return [], missing
        return [[self._open[name, k] for name in spec.seats] for k in range(count)], {}

    async def _make_room(self, spec: MatchSpec, count: int) -> None:
        """Past ``max_live``: stop the bots not in this match that were used least recently."""
        if self._max_live is None:
            return
        live = self.live()
        seats = set(spec.seats)
        need = sum(count - live.get(name, 0) for name in seats if name in self._counted)
        over = sum(live.values()) + max(need, 0) - self._max_live
        for name in sorted((n for n in live if n not in seats), key=self._used.__getitem__):
            if over <= 0:
                break
            over -= live[name]
            await self.release([name])

    async def _start(self, spec: MatchSpec, bot: Any, k: int) -> None:
        copy = bot.instance(k)
        base = spec.context.get("log_dir")
        context = spec.driver_context(log_dir=None if base is None else f"{base}/{self._name}")
        earlier = self._stopped.pop((bot.name, k), None)
        if earlier is not None:  # its last run's logs are kept beside the new ones
            keep_logs(earlier, self._runs[bot.name, k])
        stack = self._stacks.get(bot.name)
        if stack is None:
            stack = self._stacks[bot.name] = contextlib.AsyncExitStack()
            self._stack.push_async_callback(stack.aclose)
        try:
            driver = await stack.enter_async_context(open_builtin_bot(copy, context))
        except BaseException as error:  # LookupError: no driver for its kind
            cause = expected_error(error, (BotStartError, LookupError))
            if cause is None:
                raise
            self._failed[bot.name] = error_tail(cause)
            await self.release([bot.name])
            return
        self._open[bot.name, k] = driver
        self._runs[bot.name, k] += 1
        if getattr(driver, "records_visible", False):
            self.notes.append(
                f"warning: {bot.name!r} runs at a sandbox layer that can read the records "
                "(hidden cards) and the database: install bubblewrap (sandbox L1) to hide them; "
                "`arena doctor` says what works here"
            )


async def play_one(spec: MatchSpec, bots: WorkerBots) -> MatchOutcome:
    """One match with this worker's bots, into a fresh folder."""
    tables, missing = await bots.tables(spec)
    if missing:
        return MatchOutcome(None, not_started=missing)
    folder = safe_folder(spec)
    if folder.exists():  # a half-written folder of a worker that died: replaced
        shutil.rmtree(folder)
    return await play_match(spec, tables)


def safe_folder(spec: MatchSpec) -> Path:
    """The match's folder, once its key is one safe folder name and the folder is that
    name in its records folder; a :class:`TournamentError` otherwise (it is not deleted)."""
    folder = Path(spec.folder)
    try:
        check_tournament_name(spec.key)
    except BoundError as error:
        raise TournamentError(f"match key refused: {error}") from None
    if folder.name != spec.key or ".." in folder.parts or folder.is_symlink():
        shown = escape_untrusted(spec.folder, one_line=True)[:200]
        raise TournamentError(
            f"match {spec.key}: its folder {shown!r} is not <records>/{spec.key}: refused"
        )
    return folder


class _Wire:
    """JSON lines on a pipe: one message a line."""

    def __init__(self, receive: trio.abc.ReceiveStream, send: trio.abc.SendStream) -> None:
        self._receive = receive
        self._send = send
        self._buffer = bytearray()
        self._sending = trio.Lock()  # the heartbeat and the matches share the pipe

    async def send(self, message: dict[str, Any]) -> None:
        line = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        async with self._sending:
            await self._send.send_all(line)

    async def receive(self) -> dict[str, Any] | None:
        """The next message; ``None`` at the end of the stream."""
        while b"\n" not in self._buffer:
            chunk = await self._receive.receive_some(1 << 16)
            if not chunk:
                return None
            self._buffer += chunk
        line, _, rest = bytes(self._buffer).partition(b"\n")
        self._buffer = bytearray(rest)
        message: dict[str, Any] = json.loads(line)
        return message


async def serve(wire: _Wire, name: str, *, max_live: int | None = None) -> None:
    """Play what the coordinator sends until its end of the pipe closes (then stop at
    once, even mid-match: nobody is left to take the result)."""
    await wire.send({"ready": os.getpid()})
    send_spec, specs = trio.open_memory_channel[tuple[MatchSpec, list[str]]](1)
    async with trio.open_nursery() as nursery:

        async def read() -> None:
            async with send_spec:
                while (message := await wire.receive()) is not None:
                    spec = MatchSpec.from_dict(message["play"])
                    await send_spec.send((spec, [str(n) for n in message.get("release", ())]))
            nursery.cancel_scope.cancel()

        async def stop_on_sigterm() -> None:
            with trio.open_signal_receiver(signal.SIGTERM) as signals:
                async for _ in signals:
                    nursery.cancel_scope.cancel()  # bots closed on the way out

        async def heartbeat() -> None:
            for beat in itertools.count(1):
                await trio.sleep(HEARTBEAT)
                await wire.send({"alive": beat})

        nursery.start_soon(read)
        nursery.start_soon(stop_on_sigterm)
        nursery.start_soon(heartbeat)
        async with contextlib.AsyncExitStack() as stack:
            await _play_each(wire, WorkerBots(stack, name, max_live=max_live), specs)
        nursery.cancel_scope.cancel()


async def _play_each(
    wire: _Wire, bots: WorkerBots, specs: trio.MemoryReceiveChannel[tuple[MatchSpec, list[str]]]
) -> None:
    said: set[str] = set()
    async for spec, release in specs:
        await bots.release(release)
        await wire.send({"started": spec.match_id})
        try:
            outcome = await play_one(spec, bots)
        except TournamentError as error:
            await wire.send({"failed": spec.match_id, "error": str(error)})
            continue
        for note in bots.notes:
            if note not in said:
                said.add(note)
                await wire.send({"note": note})
        await wire.send({"done": spec.match_id, "outcome": outcome.to_dict(), "live": bots.live()})


async def _main(name: str, protocol_in: int, protocol_out: int, max_live: int | None) -> None:
    wire = _Wire(trio.lowlevel.FdStream(protocol_in), trio.lowlevel.FdStream(protocol_out))
    await serve(wire, name, max_live=max_live)


def main(argv: list[str] | None = None) -> int:
    """Run a worker; its exit status is 0 when the coordinator closed its stdin."""
    parser = argparse.ArgumentParser(prog="python -m arena.executors.worker")
    parser.add_argument("--name", default="worker", help="names its bots' log folder")
    parser.add_argument(
        "--max-live-bots", type=int, default=None, help="at most this many bot processes"
    )
    args = parser.parse_args(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the coordinator's to handle
    protocol_in, protocol_out = os.dup(0), os.dup(1)  # not inherited by any child
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)  # no process this one starts can read the coordinator's pipe
    os.close(null)
    os.dup2(2, 1)  # and a stray print() never corrupts the protocol
    sys.stdout = sys.stderr
    try:
        trio.run(_main, args.name, protocol_in, protocol_out, args.max_live_bots)
    except BrokenPipeError:
        return 0  # the coordinator is gone
    return 0


if __name__ == "__main__":
    sys.exit(main())
