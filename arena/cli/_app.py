"""The click group that every command module attaches to."""

from __future__ import annotations

import importlib
import sys
from typing import IO, TextIO, cast

import click

from arena import __version__

# Command modules, imported lazily so `arena --help` stays fast.
_COMMAND_MODULES = (
    "arena.cli._check",
    "arena.cli._demo",
    "arena.cli._doctor",
    "arena.cli._init",
    "arena.cli._match",
    "arena.cli._new_bot",
    "arena.cli._ratings",
    "arena.cli._replay",
    "arena.cli._report",
    "arena.cli._serve",
    "arena.cli._tokens",
    "arena.cli._tournament",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
def cli() -> None:
    """Poker bots in any language play Five Card Draw, refereed by a dealer that never cheats."""


def _register() -> None:
    for name in _COMMAND_MODULES:
        module = importlib.import_module(name)
        for command in getattr(module, "commands", None) or (module.command,):
            cli.add_command(command)


class _Escaped:
    """A text stream writing control characters (ESC, BEL, bidi overrides) escaped.

    Line breaks and tabs stay: the usage text of a usage error has them.
    """

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(
            "".join(
                ch if ch.isprintable() or ch in "\n\t" else ch.encode("unicode_escape").decode()
                for ch in text
            )
        )

    def flush(self) -> None:
        self._stream.flush()


def main() -> None:
    """Console-script entry point.

    Every error goes to stderr through :class:`_Escaped`: an error may quote text a bot
    wrote (a file in its reach, its output), and no control character of it reaches a
    terminal.
    """
    _register()
    try:
        status = cli.main(standalone_mode=False)
    except click.ClickException as error:
        error.show(file=cast(IO[str], _Escaped(sys.stderr)))  # it writes, as show() needs
        sys.exit(error.exit_code)
    except click.Abort:
        click.echo("Aborted!", err=True)
        sys.exit(1)
    sys.exit(status if isinstance(status, int) else 0)
