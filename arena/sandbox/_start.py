"""What to start for a bot, and where it will listen: the sandbox's answer to the dealer.

The dealer (:mod:`arena.dealer._launch`) gives a bot's command and settings to
:func:`plan_start` and gets back a :class:`StartPlan`: the command to run (the supervisor
at L0 and up, the bot itself at ``off``), its environment and folder, the address the bot
will serve on, and the :class:`~arena.sandbox._seatbox.SeatBox` that owns its uid,
cgroups and folders. The dealer then starts the process, pins the endpoint through the
box and speaks gRPC to the address; nothing here knows about gRPC or matches.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena.sandbox._leftovers import SOCKET_PREFIX, owner_tag
from arena.sandbox._process import free_tcp_port, limit_command
from arena.sandbox._sandbox import BotLimits
from arena.sandbox._seatbox import ADDRESS_ENV, PARENT_PID_ENV, SeatBox, absolute_command


@dataclass
class StartPlan:
    """A bot ready to start: run ``argv`` in ``cwd`` with ``env``; it serves ``address``."""

    argv: list[str]
    env: dict[str, str]
    cwd: str | os.PathLike[str] | None
    address: str
    port: str  # the TCP port, "" for a unix socket
    box: SeatBox | None  # None at ``off``
    socket_dir: str | None = None  # at ``off``, the folder the arena made for the socket


@dataclass(frozen=True)
class BotCommand:
    """What the dealer knows of a bot before it starts (a :class:`LaunchedBot`'s settings)."""

    name: str
    command: Sequence[str]
    workdir: str | os.PathLike[str] | None
    env: Mapping[str, str]
    transport: str  # "unix" or "tcp"
    limits: BotLimits
    hidden_paths: Sequence[str]
    mount_workdir: bool = True
    private_copy: bool = False
    memory_limit_mb: int | None = None
    cpu_seconds: int | None = None
    grace: float = 2.0  # seconds between SIGTERM and SIGKILL when it stops


def _with_address(command: Sequence[str], address: str, port: str) -> list[str]:
    return [arg.replace("{address}", address).replace("{port}", port) for arg in command]


def _plan_off(bot: BotCommand) -> StartPlan:
    """``off``: the command itself, on a fresh 0700 socket folder or a free port."""
    socket_dir = None
    if bot.transport == "unix":
        socket_dir = tempfile.mkdtemp(prefix=f"{SOCKET_PREFIX}{owner_tag()}-")
        address, port = f"unix:{socket_dir}/bot.sock", ""
    else:
        port = str(free_tcp_port())
        address = f"127.0.0.1:{port}"
    argv = limit_command(
        _with_address(bot.command, address, port),
        memory_limit_mb=bot.memory_limit_mb,
        cpu_seconds=bot.cpu_seconds,
    )
    env = {**os.environ, **bot.env, ADDRESS_ENV: address, PARENT_PID_ENV: str(os.getpid())}
    return StartPlan(argv, env, bot.workdir, address, port, None, socket_dir)


def plan_start(bot: BotCommand, layer: str) -> StartPlan:
    """The plan for ``bot`` at ``layer`` (resolved: ``off``, ``L0``, ``L1`` or ``L2``).

    At L0 and up this leases the seat's uid and makes its cgroups and folders (and, for a
    duplicate instance, its own copy of its folders: blocking, so call it from a worker
    thread); release them with ``plan.box.release()`` if the start fails.
    """
    if layer == "off":
        return _plan_off(bot)
    box = SeatBox(bot.name, layer, bot.limits, tuple(bot.hidden_paths))
    box.private_copy = bot.private_copy
    try:
        address, port = box.address(bot.transport)
        box.acquire()
        env = box.environment(address, dict(bot.env))
        argv = box.command(
            absolute_command(_with_address(bot.command, address, port), bot.workdir),
            workdir=bot.workdir if bot.mount_workdir else None,
            env=env,
            rlimits=box.rlimits(bot.memory_limit_mb, bot.cpu_seconds),
            grace=bot.grace,
        )
    except BaseException:
        box.release()  # what was leased or made so far
        raise
    return StartPlan(argv, env, box.private_dir or "/", address, port, box)
