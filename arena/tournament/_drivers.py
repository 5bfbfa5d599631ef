"""How arena's own kinds of bot are opened: the code behind the built-in driver plugins.

:func:`open_builtin_bot` is what the built-in ``arena_make_driver`` plugins
(:mod:`arena.plugins._builtin`) return, and what :func:`arena.tournament.run_tournament`
uses when its caller passes no opener (a caller without plugins: tests, scripts).
Every other kind of bot is opened by the driver plugin that provides it; adding a
kind means writing such a plugin, nothing here.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from arena.dealer import STARTUP_TIMEOUT, BotDriver, BotStartError, open_bot, policy_driver
from arena.policies import BUILT_IN
from arena.tournament._bots import BUILTIN_KINDS
from arena.tournament._folder import outside_folder, special_file_problem


class BotSpecLike(Protocol):
    """A bot as drivers see it (:class:`arena.tournament.BotSpec` is one).

    ``kind`` says which plugin drives it: the built-ins know ``"builtin"`` (target: a
    policy name), ``"address"`` (target: ``HOST:PORT`` or ``unix:PATH``) and
    ``"command"`` (target: a command line); a plugin may add kinds of its own.
    """

    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def target(self) -> str: ...


@dataclass(frozen=True, kw_only=True)
class DriverContext:
    """What a driver may need besides the bot; times in seconds.

    ``seed``: the match seed, for policies that draw random numbers (``None``:
    unseeded). ``log_dir``: where a launched bot's stdout and stderr logs go (``None``:
    a temporary directory). ``startup_timeout``: how long a bot may take to become
    healthy. ``options``: anything else the caller wants drivers to see (the built-in
    command driver reads ``workdir``, ``memory_limit_mb``, ``cpu_seconds``, ``sandbox``
    (a choice of :data:`arena.dealer.SANDBOX_CHOICES`) and ``hidden_paths`` (folders and
    files no bot may see: the records, the database)).
    """

    seed: int | None = None
    log_dir: Path | None = None
    startup_timeout: float = STARTUP_TIMEOUT
    options: Mapping[str, Any] | None = None


class NoDriverError(LookupError):
    """No plugin drives bots of the spec's kind: a kind nobody installed, or misspelled."""


def open_builtin_bot(
    spec: BotSpecLike, context: DriverContext
) -> AbstractAsyncContextManager[BotDriver]:
    """An unentered context manager giving a ready driver for a bot of a built-in kind.

    Raises :class:`NoDriverError` for any other kind; entering it may raise
    :class:`~arena.dealer.BotStartError`.
    """
    problem = getattr(spec, "problem", None)
    if problem:  # a folder bot whose bot.toml broke: it forfeits, the league plays on
        return _cannot_start(problem)
    if spec.kind == "builtin":
        return _open_policy(spec, context.seed)
    if spec.kind == "address":
        return open_bot(spec.name, address=spec.target, startup_timeout=context.startup_timeout)
    if spec.kind == "command":
        folder = getattr(spec, "folder", None)
        argv = _argv(spec)
        reach = None
        if folder is not None:  # a student's folder: nothing outside it, no FIFO in it
            reach = special_file_problem(folder)
            reach = reach or (outside_folder(argv, folder) if isinstance(argv, list) else None)
        if reach is not None:
            return _cannot_start(f"bot {spec.name!r}: {reach}")
        options = dict(context.options or {})
        workdir = getattr(spec, "workdir", None) or options.get("workdir")
        return open_bot(
            spec.name,
            command=argv,
            startup_timeout=context.startup_timeout,
            log_dir=context.log_dir,
            workdir=workdir,
            # the tournament file's own folder may hold every bot: mount only a given workdir
            mount_workdir=workdir != options.get("workdir"),
            memory_limit_mb=options.get("memory_limit_mb"),
            cpu_seconds=options.get("cpu_seconds"),
            sandbox=options.get("sandbox", "auto"),
            limits=getattr(spec, "limits", None),
            hidden_paths=options.get("hidden_paths", ()),
            private_copy=getattr(spec, "private_copy", False),
        )
    raise NoDriverError(
        f"bot {spec.name!r}: no plugin drives bots of kind {spec.kind!r} "
        f"(arena itself drives {', '.join(BUILTIN_KINDS)}; is the plugin installed, "
        "not blocked, and autoload on?)"
    )


@asynccontextmanager
async def _cannot_start(problem: str) -> AsyncIterator[BotDriver]:
    raise BotStartError(problem)
    yield  # pragma: no cover  (makes this a generator)


def _argv(spec: BotSpecLike) -> list[str] | str:
    """:attr:`BotSpec.argv` (``{python}`` replaced); a plain string target is split by
    the launcher like a shell would."""
    try:
        return spec.argv  # type: ignore[attr-defined]  # BotSpec has argv; other specs fall back below
    except AttributeError:
        return spec.target


@asynccontextmanager
async def _open_policy(spec: BotSpecLike, seed: int | None) -> AsyncIterator[BotDriver]:
    """An in-process policy for the block; :class:`BotStartError` if there is no such policy."""
    try:
        driver = policy_driver(spec.name, spec.target, seed)
    except KeyError:
        raise BotStartError(
            f"{spec.name}: unknown built-in policy {spec.target!r}; choose from {', '.join(BUILT_IN)}"
        ) from None
    try:
        yield driver
    finally:
        await driver.aclose()
