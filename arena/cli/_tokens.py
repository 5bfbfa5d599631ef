"""``arena bots add|list|revoke|rotate``: the tokens of bots that dial in (issue 11 item 2).

A token is printed once, alone on stdout (``TOKEN=$(arena bots add alice)`` works), and
the store keeps only its SHA-256; what to do with it goes to stderr. Every failure is one
line naming the file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

from arena.cli._errors import one_line, user_errors
from arena.text import escape_untrusted

if TYPE_CHECKING:
    from arena.server._tokens import BotEntry, TokenStore

T = TypeVar("T")

DEFAULT_TOKENS = Path("arena-data/tokens.json")
"""Beside the demo's database: ``arena-data/`` is the organiser's folder."""

DEFAULT_OVERLAP = 3600.0
_UNITS = {"": 1.0, "s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
_DURATION = re.compile(r"^(\d+(?:\.\d+)?)\s*([smhd]?)\Z")
_MAX_OVERLAP = 366 * 86400.0


class Duration(click.ParamType):
    """Seconds, or a number with ``s``, ``m``, ``h`` or ``d``: ``90``, ``30s``, ``10m``, ``2d``."""

    name = "duration"

    def convert(self, value, param, ctx) -> float:
        if isinstance(value, int | float):
            seconds = float(value)
        else:
            found = _DURATION.match(str(value).strip().lower())
            if found is None:
                self.fail(f"{value!r} is not a duration (e.g. 90, 30s, 10m, 1h, 2d)", param, ctx)
            seconds = float(found.group(1)) * _UNITS[found.group(2)]
        if not math.isfinite(seconds) or not 0 <= seconds <= _MAX_OVERLAP:
            self.fail(f"{value!r} is not within 0 s .. 366 days", param, ctx)
        return seconds


def tokens_option(function: Callable) -> Callable:
    """``--tokens PATH`` (or ``$ARENA_TOKENS``), on every subcommand."""
    return click.option(
        "--tokens",
        "tokens",
        type=click.Path(dir_okay=False, path_type=Path),
        default=DEFAULT_TOKENS,
        show_default=True,
        envvar="ARENA_TOKENS",
        help="The token store (only SHA-256 hashes); also $ARENA_TOKENS.",
    )(function)


def _interrupted() -> str:
    return "interrupted: `arena bots list` shows what the token store holds"


def _store(path: Path) -> TokenStore:
    """The token store at ``path`` (the server package is imported only when one is used)."""
    from arena.server._tokens import TokenStore

    return TokenStore(path)


def _run(work: Callable[[], T]) -> T:
    """``work()`` with its store errors and Ctrl-C as one line."""
    from arena.server._tokens import TokenStoreError

    with user_errors(_interrupted):
        try:
            return work()
        except TokenStoreError as error:
            raise click.ClickException(one_line(str(error))) from None


def _show_token(token: str, what: str) -> None:
    click.echo(token)
    click.echo(
        f"{what}: shown once, stored only as its SHA-256. Give it to the bot's "
        "author; the bot sends it as `authorization: Bearer ...` metadata "
        "(the SDK reads $ARENA_TOKEN).",
        err=True,
    )


@click.group("bots")
def bots() -> None:
    """Tokens of bots that dial in to `arena serve` (stored as SHA-256 only)."""


@bots.command("add")
@click.argument("name")
@tokens_option
def add_command(name: str, tokens: Path) -> None:
    """Add bot NAME and print its token once (stdout, alone on its line)."""
    token = _run(lambda: _store(tokens).add(name))
    _show_token(token, f"the token of {name}")


@bots.command("rotate")
@click.argument("name")
@click.option(
    "--overlap",
    type=Duration(),
    default="1h",
    show_default=True,
    help="How long the old token keeps working (90, 30s, 10m, 1h, 2d; 0: not at all).",
)
@tokens_option
def rotate_command(name: str, overlap: float, tokens: Path) -> None:
    """Print a new token for bot NAME once; its old one ends after the overlap."""
    token = _run(lambda: _store(tokens).rotate(name, overlap))
    _show_token(token, f"a new token for {name} (the old one works {_duration(overlap)} more)")


@bots.command("revoke")
@click.argument("name")
@tokens_option
def revoke_command(name: str, tokens: Path) -> None:
    """End every token of bot NAME now (a running `arena serve` ends its streams)."""
    _run(lambda: _store(tokens).revoke(name))
    click.echo(
        f"revoked {name}: its tokens no longer work; a running `arena serve` re-reads "
        f"{escape_untrusted(str(tokens))} and ends {name}'s streams within a second"
    )


@bots.command("list")
@tokens_option
def list_command(tokens: Path) -> None:
    """List the bots: status, live tokens, when added, when a token expires (never a token)."""
    entries = _run(lambda: _store(tokens).bots())
    if not entries:
        click.echo(f"no bots in {escape_untrusted(str(tokens))} (`arena bots add NAME` adds one)")
        return
    rows = [("name", "status", "tokens", "created", "expires")]
    rows += [_row(entry) for entry in entries]
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        click.echo(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )


def _row(entry: BotEntry) -> tuple[str, str, str, str, str]:
    if entry.revoked is not None:
        expires = f"revoked {_when(entry.revoked)}"
    elif entry.next_expiry is not None:
        expires = f"old token {_when(entry.next_expiry)}"
    else:
        expires = "never" if entry.live_tokens else "-"
    return (entry.name, entry.status, str(entry.live_tokens), _when(entry.created), expires)


def _when(stamp: str) -> str:
    """A stored UTC time to the second, e.g. ``2026-12-01 15:34:15Z``."""
    return datetime.fromisoformat(stamp).strftime("%Y-%m-%d %H:%M:%SZ")


def _duration(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size and seconds % size == 0:
            return f"{seconds / size:g}{unit}"
    return f"{seconds:g}s"


commands = (bots,)
