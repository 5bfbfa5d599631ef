"""``--watch [ADDRESS]``: serve the live spectator page while a match or tournament plays.

The director's URL holds its token (every card): it is never printed into a pipe or a
file. It is written to a 0600 file in a 0700 folder of its own (removed when the page
stops), whose path is said on stderr, and printed on stderr only when stderr is a
terminal (the same for ``arena match`` and ``arena tournament run``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator, Iterator
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # the web views (Trio, the templates) load only when a page is served
    from rich.console import Console

    from arena.web import LiveHub

DEFAULT_WATCH = "127.0.0.1"


def _check_address(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    if value is None:
        return None
    from arena.web import AddressError, parse_address

    try:
        parse_address(value)
    except AddressError as error:
        raise click.BadParameter(
            f"{error} (write --watch=ADDRESS, or put --watch after the bots)"
        ) from None
    return value


_watch_flag = click.option(
    "--watch",
    is_flag=False,
    flag_value=DEFAULT_WATCH,
    default=None,
    metavar="[ADDRESS]",
    callback=_check_address,
    help=(
        "Serve the live spectator page at ADDRESS (HOST, HOST:PORT or :PORT; "
        "default 127.0.0.1 and a free port); the URL is printed, and the file that holds "
        "the director's URL (with its token) is named on stderr."
    ),
)
_SETTINGS = "arena.watch"  # the click context's meta key of --watch-delay and --linger


def _keep(key: str) -> Any:
    def keep(ctx: click.Context, param: click.Parameter, value: float | None) -> None:
        ctx.meta.setdefault(_SETTINGS, {})[key] = value

    return keep


def watch_option(command: Any) -> Any:
    """``--watch``, with ``--watch-delay`` and ``--linger`` (kept in the click context,
    read by :func:`live_view`, so no command passes them on)."""
    command = click.option(
        "--linger",
        type=click.FloatRange(min=0),
        default=None,
        metavar="SECONDS",
        expose_value=False,
        callback=_keep("linger"),
        help=(
            "With --watch: keep the live page served SECONDS after the last hand (default: "
            "until Ctrl-C when run from a terminal, else only until the delay is out)."
        ),
    )(command)
    command = click.option(
        "--watch-delay",
        type=click.FloatRange(min=0),
        default=0.0,
        metavar="SECONDS",
        expose_value=False,
        callback=_keep("delay"),
        help=(
            "With --watch: spectators see everything, every card included, SECONDS after "
            "it happened (the director's view is not delayed). Default 0."
        ),
    )(command)
    return _watch_flag(command)


def _watch_settings() -> tuple[float, float | None]:
    """``--watch-delay`` and ``--linger`` of the running command (0 and None outside one)."""
    ctx = click.get_current_context(silent=True)
    kept = {} if ctx is None else ctx.find_root().meta.get(_SETTINGS, {})
    return float(kept.get("delay") or 0.0), kept.get("linger")


@contextlib.asynccontextmanager
async def live_view(
    watch: str | None, title: str, console: Console
) -> AsyncIterator[LiveHub | None]:
    """The hub to feed (None without ``--watch``), served for the duration of the block."""
    from arena.web import LiveHub, is_loopback, parse_address, watching

    if watch is None:
        yield None
        return
    delay, linger = _watch_settings()
    hub = LiveHub(delay=delay)
    async with contextlib.AsyncExitStack() as stack:
        try:
            server = await stack.enter_async_context(watching(hub, watch, title=title))
        except* OSError as group:
            error = group.exceptions[0]
            reason = getattr(error, "strerror", None) or str(error)
            raise click.ClickException(f"cannot serve the live page at {watch}: {reason}") from None
        say = partial(console.print, markup=False, highlight=False, soft_wrap=True)
        late = f" (spectators see each event {delay:g} s after it happened)" if delay else ""
        say(f"watch live: {server.url}{late}")
        secret = stack.enter_context(_director_file(server.director_url))
        if _stderr_is_terminal():
            _to_stderr(f"director (every card, after each hand): {server.director_url}")
        _to_stderr(
            f"director's view (every card, after each hand): its URL is in {secret} "
            "(0600, removed when the page stops)"
        )
        host, _ = parse_address(watch)
        if not is_loopback(host):
            say(
                f"note: the live page is served on {host}: anyone who can reach it can watch "
                "(the director's view still needs the token)"
            )
        yield hub
        await _linger(hub, server.url, linger, say)


async def _linger(hub: LiveHub, url: str, linger: float | None, say: Any) -> None:
    """After the last hand: serve until the delayed events are out, then ``linger``
    seconds (None: until Ctrl-C from a terminal, else not at all); Ctrl-C ends it."""
    import trio

    if linger is None:
        linger = float("inf") if _stdin_is_terminal() else 0.0
    try:
        if hub.held:
            say(f"live page still at {url}: the spectators' last {hub.held} events are delayed")
            while hub.held:
                await trio.sleep(0.25)
        if linger > 0:
            until = "" if linger == float("inf") else f" for {linger:g} s"
            say(f"live page still at {url}{until}; Ctrl-C to stop")
            await trio.sleep(linger)
    except KeyboardInterrupt:
        say("live page stopped")


def _stdin_is_terminal() -> bool:
    try:
        return os.isatty(sys.stdin.fileno())
    except (AttributeError, OSError, ValueError):
        return False


def _stderr_is_terminal() -> bool:
    """Whether stderr is a terminal (its own file descriptor: FORCE_COLOR or a rich
    console's notion does not count, so a CI log never gets the token)."""
    try:
        return os.isatty(sys.stderr.fileno())
    except (AttributeError, OSError, ValueError):  # a test's buffer, a closed stream
        return False


def _to_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


@contextlib.contextmanager
def _director_file(url: str) -> Iterator[Path]:
    """``url`` in a new 0600 file in a new 0700 folder, both removed after the block."""
    folder = Path(tempfile.mkdtemp(prefix="arena-live-"))  # 0700, a fresh name
    try:
        path = folder / "director-url"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(path, flags, 0o600)
        with os.fdopen(fd, "w") as file:
            file.write(url + "\n")
        yield path
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def __getattr__(name: str) -> Any:
    """``follow_standings``, the page's refits, for older imports (it lives in
    :mod:`arena.tournament._live`, imported only when asked for)."""
    if name == "follow_standings":
        from arena.tournament._live import follow_standings

        return follow_standings
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
