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


watch_option = click.option(
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


@contextlib.asynccontextmanager
async def live_view(
    watch: str | None, title: str, console: Console
) -> AsyncIterator[LiveHub | None]:
    """The hub to feed (None without ``--watch``), served for the duration of the block."""
    from arena.web import LiveHub, is_loopback, parse_address, watching

    if watch is None:
        yield None
        return
    hub = LiveHub()
    async with contextlib.AsyncExitStack() as stack:
        try:
            server = await stack.enter_async_context(watching(hub, watch, title=title))
        except* OSError as group:
            error = group.exceptions[0]
            reason = getattr(error, "strerror", None) or str(error)
            raise click.ClickException(f"cannot serve the live page at {watch}: {reason}") from None
        say = partial(console.print, markup=False, highlight=False, soft_wrap=True)
        say(f"watch live: {server.url}")
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
