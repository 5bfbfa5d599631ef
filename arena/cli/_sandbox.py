"""The sandbox options of `arena match` and `arena check-bot`, and what they warn about."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena.cli._options import SANDBOX_CHOICES
from arena.text import escape_untrusted

if TYPE_CHECKING:
    from arena.dealer import BotDriver


def sandbox_option(func):
    """``--sandbox``, shared by `arena match` and `arena check-bot`."""
    return click.option(
        "--sandbox",
        type=click.Choice(SANDBOX_CHOICES),
        default="auto",
        show_default=True,
        help="Sandbox layer for launched bots: auto picks the highest that works here "
        "(`arena doctor` lists them); a layer that does not work is an error.",
    )(func)


def checked_sandbox(choice: str) -> str:
    """The layer ``choice`` resolves to here; one line naming why if it does not work."""
    from arena.sandbox import SandboxError, resolve_sandbox

    try:
        return resolve_sandbox(choice)
    except SandboxError as error:
        raise click.ClickException(f"--sandbox {choice}: {error}") from None


def warn_exposed(drivers: list[BotDriver], records: Path, *, duplicate: bool) -> None:
    """Say (on stderr) what the sandbox cannot protect in this match."""
    from rich.console import Console

    from arena.sandbox import sandbox_of

    console = Console(stderr=True)
    exposed = [d.name for d in drivers if getattr(d, "records_visible", False)]
    if exposed:
        console.print(
            escape_untrusted(
                f"warning: {', '.join(exposed)} can read {records} (the referee's records, "
                "hidden cards included): sandbox off or L0; install bubblewrap for L1"
            ),
            markup=False,
        )
    as_root = [d.name for d in drivers if sandbox_of(d) in ("off", "L0")]
    if as_root and os.geteuid() == 0:
        console.print(
            escape_untrusted(
                f"warning: {', '.join(as_root)} run as root (sandbox off or L0 as root): such "
                "a bot can do anything root can on this machine; use --sandbox auto (L2)"
            ),
            markup=False,
        )
    remote = [d.name for d in drivers if sandbox_of(d) == "remote"]
    if duplicate and remote:
        console.print(
            escape_untrusted(
                f"warning: {', '.join(remote)} is dialled at an address and plays every "
                "rotation in one process: duplicate dealing cannot keep it from remembering decks"
            ),
            markup=False,
        )
