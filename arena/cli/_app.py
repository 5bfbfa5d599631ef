"""The click group that every command module attaches to."""

from __future__ import annotations

import importlib
import sys
from typing import IO, TextIO, cast

import click

from arena import __version__

SHORT_HELP_LIMIT = 62
"""How long a command's line in ``arena --help`` may be: what click gives it in 80 columns
(78 for the text, less the indent, the gap and the longest name, ``tournament``)."""

COMMANDS: dict[str, tuple[tuple[str, ...], str]] = {
    "bots": (("arena.cli._tokens",), "Tokens of bots that dial in to `arena serve` (stored as..."),
    "check-bot": (
        ("arena.cli._check",),
        'Check BOT (`builtin:NAME`, `HOST:PORT`, "COMMAND" or a bot...',
    ),
    "demo": (
        ("arena.cli._demo",),
        "Play a round robin among the example bots (the Node bot too...",
    ),
    "doctor": (
        ("arena.cli._doctor",),
        "Print the sandbox layers that work here (L0, L1, L2), and...",
    ),
    "match": (("arena.cli._match",), "Play a match between BOTS (2-7), each..."),
    "new-bot": (("arena.cli._new_bot",), "Make FOLDER a ready-to-run bot: its README, a first..."),
    "ratings": (
        ("arena.cli._ratings",),
        "Print the leaderboard from the database: Elo and mbb/hand,...",
    ),
    "replay": (
        ("arena.cli._replay",),
        "Replay every hand of the PHH files (.phh, .phhs) through...",
    ),
    "report": (
        ("arena.cli._report",),
        "Write the report: leaderboard, Elo over time, bankrolls,...",
    ),
    "serve": (
        ("arena.cli._serve",),
        "Run the tournament in FILE while its `remote = true` bots...",
    ),
    "submit": (
        ("arena.cli._submit",),
        "Send the bot FOLDER to the ladder at --server as a new...",
    ),
    "tournament": (
        ("arena.cli._tournament", "arena.cli._init"),
        "Run tournaments from a TOML file (see examples_tournaments/).",
    ),
}
"""Each command: the modules that define it (imported only when it runs or shows its own
help, issue 20 item 3) and the line ``arena --help`` shows for it: the command's own
``get_short_help_str(SHORT_HELP_LIMIT)``, as ``tests/cli/test_fast_cli.py`` checks."""


class _LazyGroup(click.Group):
    """A group that imports a command's module only when that command is asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            for name in COMMANDS[cmd_name][0]:
                module = importlib.import_module(name)
                for command in getattr(module, "commands", None) or (module.command,):
                    self.add_command(command)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from :data:`COMMANDS`: ``arena --help`` imports no command."""
        with formatter.section("Commands"):
            formatter.write_dl([(name, COMMANDS[name][1]) for name in self.list_commands(ctx)])


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
def cli() -> None:
    """Poker bots in any language play Five Card Draw, refereed by a dealer that never cheats."""


def load_all() -> None:
    """Import every command (for tools that walk the whole tree, like the reference test)."""
    for name in COMMANDS:
        cli.get_command(click.Context(cli), name)


_register = load_all  # the name the tests have long used


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
    try:
        status = cli.main(standalone_mode=False)
    except click.ClickException as error:
        error.show(file=cast(IO[str], _Escaped(sys.stderr)))  # it writes, as show() needs
        sys.exit(error.exit_code)
    except click.Abort:
        click.echo("Aborted!", err=True)
        sys.exit(1)
    sys.exit(status if isinstance(status, int) else 0)
