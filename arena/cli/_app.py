"""The click group that every command module attaches to."""

from __future__ import annotations

import importlib

import click

from arena import __version__

# Command modules, imported lazily so `arena --help` stays fast.
_COMMAND_MODULES = (
    "arena.cli._check",
    "arena.cli._demo",
    "arena.cli._match",
    "arena.cli._ratings",
    "arena.cli._replay",
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


def main() -> None:
    """Console-script entry point."""
    _register()
    cli()
