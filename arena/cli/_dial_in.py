"""The command line's side of bots that dial in: the server options, the server for a
run, and the opener that seats ``remote`` bots on it.

``arena serve`` and ``arena match --listen`` both use :func:`dial_in_options` and
:func:`open_dial_in`; a run without remote bots and without ``--listen`` starts no
server at all.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arena.cli._errors import one_line
from arena.cli._options import MAX_TABLES, RECONNECT_WINDOW
from arena.cli._tokens import tokens_option

if TYPE_CHECKING:  # the server (gRPC) loads only when a command runs
    from rich.console import Console

    from arena.server import ArenaServer, ServerSettings
    from arena.tournament import RemoteSeats

REMOTE_KIND = "remote"


@dataclass(frozen=True)
class DialIn:
    """The dial-in options of one command (``listen`` None: no server unless needed)."""

    listen: str | None
    tokens: Path
    tls_cert: Path | None
    tls_key: Path | None
    reconnect_window: float
    max_tables: int

    def settings(self, console: Console) -> ServerSettings:
        from arena.server import ServerSettings

        assert self.listen is not None

        def tls_note(line: str) -> None:
            console.print(f"note: {one_line(line)}", markup=False, highlight=False)

        return ServerSettings(
            listen=self.listen,
            tokens=self.tokens,
            tls_cert=self.tls_cert,
            tls_key=self.tls_key,
            reconnect_window=self.reconnect_window,
            max_tables=self.max_tables,
            on_tls_reload=tls_note,
        )


def dial_in_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``--listen``, ``--tls-cert``, ``--tls-key``, ``--tokens``, ``--reconnect-window``,
    ``--max-tables``, gathered into one ``dial_in`` argument."""
    options = [
        click.option(
            "--listen",
            metavar="HOST:PORT",
            help="Where bots dial in (`remote` bots): 127.0.0.1:PORT, [::1]:PORT or unix:PATH "
            "in plain text; any other address needs --tls-cert and --tls-key.",
        ),
        click.option(
            "--tls-cert",
            type=click.Path(path_type=Path),
            help="PEM certificate chain for the listener (re-read when the file changes).",
        ),
        click.option("--tls-key", type=click.Path(path_type=Path), help="PEM private key."),
        click.option(
            "--reconnect-window",
            type=click.FloatRange(0, 3600),
            default=RECONNECT_WINDOW,
            show_default=True,
            help="Seconds a dropped remote bot's seat is held for it to come back.",
        ),
        click.option(
            "--max-tables",
            type=click.IntRange(1, 64),
            default=MAX_TABLES,
            show_default=True,
            help="Streams (tables at once) one remote bot may hold open.",
        ),
    ]

    @functools.wraps(command)  # keeps the options declared below this decorator
    def gather(**kwargs: Any) -> Any:
        keys = ("listen", "tls_cert", "tls_key", "tokens", "reconnect_window", "max_tables")
        values = {key: kwargs.pop(key) for key in keys}
        kwargs["dial_in"] = DialIn(**values)
        return command(**kwargs)

    wrapped: Callable[..., Any] = tokens_option(gather)
    for option in reversed(options):
        wrapped = option(wrapped)
    return wrapped


def remote_names(specs: Iterable[Any]) -> list[str]:
    """The remote bots' names (their token names) among ``specs``, in order, once each."""
    names: list[str] = []
    for spec in specs:
        if spec.kind == REMOTE_KIND and spec.target not in names:
            names.append(spec.target)
    return names


DUPLICATE_REFUSED = (
    "duplicate dealing with a bot that dials in would show it its opponents' cards: one "
    "process plays every rotation of the deal at the same time"
)


def check_remote_seats(specs: Sequence[Any], *, duplicate: bool, fix: str) -> None:
    """Refuse what a bot that dials in could exploit: duplicate dealing (``fix`` says how to
    turn it off), and one token's bot in two seats of one table (it would see both hands)."""
    names = [spec.target for spec in specs if spec.kind == REMOTE_KIND]
    if names and duplicate:
        raise click.UsageError(f"{', '.join(dict.fromkeys(names))}: {DUPLICATE_REFUSED}; {fix}")
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise click.UsageError(
            f"remote bot {', '.join(twice)} sits twice at one table: it would see both hands"
        )


@contextlib.asynccontextmanager
async def open_dial_in(
    dial_in: DialIn, names: Sequence[str], console: Console
) -> AsyncIterator[ArenaServer | None]:
    """The server for the remote bots ``names`` (None when there are none and no ``--listen``)."""
    from arena.server import ServerError, open_arena_server

    if not names and dial_in.listen is None:
        yield None
        return
    if dial_in.listen is None:
        raise click.ClickException(
            f"{', '.join(names)}: remote bots dial in: give --listen HOST:PORT "
            "(a tournament: `arena serve FILE --listen HOST:PORT`; TLS off loopback)"
        )
    async with contextlib.AsyncExitStack() as stack:
        try:
            server = await stack.enter_async_context(
                open_arena_server(dial_in.settings(console), names)
            )
        except ServerError as error:
            raise click.ClickException(str(error)) from None
        tls = "TLS" if dial_in.tls_cert is not None else "plain text, this machine only"
        console.print(
            f"listening for bots on {server.address} ({tls}); tokens from {dial_in.tokens}; "
            f"remote bots: {', '.join(names) or 'none'}",
            markup=False,
            highlight=False,
        )
        yield server


Opener = Callable[[Any], AbstractAsyncContextManager[Any]]


def remote_opener(server: ArenaServer | None, opener: Opener) -> Opener:
    """``opener``, except that remote bots are the server's drivers."""

    def open_entry(spec: Any) -> AbstractAsyncContextManager[Any]:
        if spec.kind != REMOTE_KIND:
            return opener(spec)
        if server is None:
            raise click.ClickException(f"bot {spec.name!r} is remote: give --listen HOST:PORT")
        return contextlib.nullcontext(server.bot(spec.target))

    return open_entry


def waiting_line(names: Sequence[str], server: RemoteSeats | None) -> str:
    """What the console says while nothing can be played: who is not connected, and where."""
    where = f" to dial in to {server.address}" if server is not None else ""
    return f"waiting for: {', '.join(names)}{where}"


async def wait_for_bots(server: ArenaServer, needs: dict[str, int], console: Console) -> None:
    """Return once each remote bot has the streams it needs, saying who is awaited."""
    missing = sorted(
        name for name, count in needs.items() if server.bot(name).free_tables() < count
    )
    if missing:
        console.print(waiting_line(missing, server), markup=False, highlight=False)
    await server.wait_for(needs)
