"""A dealer worker process: ``python -m arena.executors.worker --name worker-1``.

Started by :class:`arena.executors.ProcessExecutor` with :mod:`subprocess` (never forked
from a process running gRPC). It speaks JSON lines on its stdin and stdout:

- it sends ``{"ready": PID}`` once, then for each match ``{"started": ID}``,
  ``{"note": TEXT}`` (said once per worker) and ``{"done": ID, "outcome": {...}}``, or
  ``{"failed": ID, "error": LINE}`` for an error that stops the tournament (disk full);
- it reads ``{"play": SPEC}`` (a :class:`~arena.tournament.MatchSpec` as a dict); the end
  of its stdin (the coordinator closed it, or died) ends it, as does SIGTERM.

It plays one match at a time with its own bots, each opened the first time a match needs
it and kept for the worker's life: a launched bot is its own process (its supervisor
watches this process and kills the bot when it dies, even by SIGKILL), a built-in one is
an object in this process. Under duplicate dealing each bot has one instance per rotation
(instance ``k`` plays only table ``k``, issue 9). Launched bots' logs go to
``<records>/bots/<worker name>/``. A match's folder is emptied before it is played: what
is there is a half-written one from a worker that died.

Its own stdout is kept for the protocol: anything else that prints lands on stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

import trio

from arena.dealer import BotDriver, BotStartError
from arena.tournament import MatchOutcome, MatchSpec, TournamentError, open_builtin_bot, play_match
from arena.tournament._errors import expected_error
from arena.tournament._not_started import error_tail


class WorkerBots:
    """This worker's bots: each instance opened on first need and kept until the end."""

    def __init__(self, stack: contextlib.AsyncExitStack, name: str) -> None:
        self._stack = stack
        self._name = name
        self._open: dict[tuple[str, int], BotDriver] = {}
        self._failed: dict[str, str] = {}
        self.notes: list[str] = []

    async def tables(self, spec: MatchSpec) -> tuple[list[list[BotDriver]], dict[str, str]]:
        """The match's tables (``tables[k][i]``), or the bots that did not start and why."""
        count = len(spec.seats) if spec.duplicate else 1
        bots = {bot.name: bot for bot in spec.bot_specs()}
        for name in sorted(bots):
            for k in range(count):
                if name not in self._failed and (name, k) not in self._open:
                    await self._start(spec, bots[name], k)
        missing = {name: self._failed[name] for name in spec.seats if name in self._failed}
        if missing:
            return [], missing
        return [[self._open[name, k] for name in spec.seats] for k in range(count)], {}

    async def _start(self, spec: MatchSpec, bot: Any, k: int) -> None:
        copy = bot if k == 0 else bot.renamed(f"{bot.name}.{k + 1}")
        base = spec.context.get("log_dir")
        context = spec.driver_context(log_dir=None if base is None else f"{base}/{self._name}")
        try:
            driver = await self._stack.enter_async_context(open_builtin_bot(copy, context))
        except BaseException as error:  # LookupError: no driver for its kind
            cause = expected_error(error, (BotStartError, LookupError))
            if cause is None:
                raise
            self._failed[bot.name] = error_tail(cause)
            return
        self._open[bot.name, k] = driver
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
    folder = Path(spec.folder)
    if folder.exists():  # a half-written folder of a worker that died: replaced
        shutil.rmtree(folder)
    return await play_match(spec, tables)


class _Wire:
    """JSON lines on a pipe: one message a line."""

    def __init__(self, receive: trio.abc.ReceiveStream, send: trio.abc.SendStream) -> None:
        self._receive = receive
        self._send = send
        self._buffer = bytearray()

    async def send(self, message: dict[str, Any]) -> None:
        await self._send.send_all(json.dumps(message, separators=(",", ":")).encode() + b"\n")

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


async def serve(wire: _Wire, name: str) -> None:
    """Play what the coordinator sends until its end of the pipe closes (then stop at
    once, even mid-match: nobody is left to take the result)."""
    await wire.send({"ready": os.getpid()})
    send_spec, specs = trio.open_memory_channel[MatchSpec](1)
    async with trio.open_nursery() as nursery:

        async def read() -> None:
            async with send_spec:
                while (message := await wire.receive()) is not None:
                    await send_spec.send(MatchSpec.from_dict(message["play"]))
            nursery.cancel_scope.cancel()

        async def stop_on_sigterm() -> None:
            with trio.open_signal_receiver(signal.SIGTERM) as signals:
                async for _ in signals:
                    nursery.cancel_scope.cancel()  # bots closed on the way out

        nursery.start_soon(read)
        nursery.start_soon(stop_on_sigterm)
        async with contextlib.AsyncExitStack() as stack:
            await _play_each(wire, WorkerBots(stack, name), specs)
        nursery.cancel_scope.cancel()


async def _play_each(
    wire: _Wire, bots: WorkerBots, specs: trio.MemoryReceiveChannel[MatchSpec]
) -> None:
    said: set[str] = set()
    async for spec in specs:
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
        await wire.send({"done": spec.match_id, "outcome": outcome.to_dict()})


async def _main(name: str, protocol_in: int, protocol_out: int) -> None:
    wire = _Wire(trio.lowlevel.FdStream(protocol_in), trio.lowlevel.FdStream(protocol_out))
    await serve(wire, name)


def main(argv: list[str] | None = None) -> int:
    """Run a worker; its exit status is 0 when the coordinator closed its stdin."""
    parser = argparse.ArgumentParser(prog="python -m arena.executors.worker")
    parser.add_argument("--name", default="worker", help="names its bots' log folder")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the coordinator's to handle
    protocol_in, protocol_out = os.dup(0), os.dup(1)  # not inherited by any child
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)  # no process this one starts can read the coordinator's pipe
    os.close(null)
    os.dup2(2, 1)  # and a stray print() never corrupts the protocol
    sys.stdout = sys.stderr
    try:
        trio.run(_main, args.name, protocol_in, protocol_out)
    except BrokenPipeError:
        return 0  # the coordinator is gone
    return 0


if __name__ == "__main__":
    sys.exit(main())
