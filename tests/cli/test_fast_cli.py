"""The command line answers at once (issue 20 item 3): help and usage errors import no
transport, no numbers and no templates.

What a command shows before it runs (its options, their defaults and choices, a usage
error) comes from light modules; grpc, protobuf, numpy, jinja2 and Trio are imported
only inside the functions that run a command. These checks are structural, never
timings (``scripts/bench_cli.py`` prints those): each parses one command line in a
fresh interpreter and lists the heavy packages it imported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
import click.testing
import pytest

from arena.cli import _app, _options
from arena.cli._app import COMMANDS, SHORT_HELP_LIMIT, cli, load_all

HEAVY = ("grpc", "google", "numpy", "jinja2", "trio")
"""Top-level packages that a help text or a usage error must not import."""

PROBE = """
import json, sys
import click
import click.testing
from arena.cli._app import cli
try:
    cli.main({args!r}, prog_name="arena", standalone_mode=False)
except (click.exceptions.Exit, click.ClickException, SystemExit):
    pass
heavy = {heavy!r}
print("MODULES " + json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in heavy)))
"""


def heavy_modules(args: list[str]) -> list[str]:
    """The heavy modules a fresh ``arena ARGS`` imports (it is parsed, never run)."""
    code = PROBE.format(args=args, heavy=HEAVY)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    (line,) = [line for line in done.stdout.splitlines() if line.startswith("MODULES ")]
    return json.loads(line.removeprefix("MODULES "))


def command_paths() -> list[list[str]]:
    """Every command and subcommand click knows, as the words that name it."""
    load_all()
    paths: list[list[str]] = []

    def walk(group: click.Group, prefix: list[str]) -> None:
        for name in sorted(group.commands):
            command = group.commands[name]
            paths.append([*prefix, name])
            if isinstance(command, click.Group):
                walk(command, [*prefix, name])

    walk(cli, [])
    return paths


NOT_YET: dict[str, str] = {}
"""Commands whose help still imports a heavy package, and why."""


def case(path: list[str]) -> object:
    marks = []
    if path[0] in NOT_YET:
        marks.append(pytest.mark.xfail(strict=True, reason=NOT_YET[path[0]]))
    return pytest.param(path, id=" ".join(path), marks=marks)


class TestNothingHeavy:
    def test_the_group_help(self) -> None:
        """`arena --help` lists every command and imports none of them."""
        assert [] == heavy_modules(["--help"])

    @pytest.mark.parametrize("path", [case(path) for path in command_paths()])
    def test_each_command_help(self, path: list[str]) -> None:
        """`arena COMMAND [SUBCOMMAND] --help` imports no heavy package."""
        assert [] == heavy_modules([*path, "--help"])

    @pytest.mark.parametrize(
        "args",
        [
            pytest.param(["match", "--max-draw", "0", "a", "b"], id="match --max-draw 0"),
            pytest.param(["match", "--hands", "0", "a", "b"], id="match --hands 0"),
            pytest.param(["match", "--timeout", "nan", "a", "b"], id="match --timeout nan"),
            pytest.param(["check-bot", "--timeout", "-1", "x"], id="check-bot -1"),
            pytest.param(["match", "--joker", "two", "a", "b"], id="match --joker two"),
            pytest.param(["bots", "add"], id="bots add"),
            pytest.param(["ratings", "--anchor-rating", "x"], id="ratings --anchor-rating x"),
        ],
    )
    def test_a_usage_error(self, args: list[str]) -> None:
        """A bad option value is refused before anything heavy is imported."""
        assert [] == heavy_modules(args)


class TestTheCommandTable:
    def test_every_command_is_in_the_table(self) -> None:
        """Every command click knows (after importing them all) is one of COMMANDS."""
        load_all()
        assert sorted(COMMANDS) == sorted(cli.commands)

    @pytest.mark.parametrize("name", sorted(COMMANDS))
    def test_its_help_line_is_the_commands_own(self, name: str) -> None:
        """The line `arena --help` shows is the command's own short help, so the table
        cannot drift from the docstrings."""
        load_all()
        own = cli.commands[name].get_short_help_str(limit=SHORT_HELP_LIMIT)
        assert own == COMMANDS[name][1]

    def test_the_group_help_lists_the_table(self) -> None:
        """`arena --help` shows each command with its table line."""
        text = click.testing.CliRunner().invoke(cli, ["--help"]).output
        for name, (_, line) in COMMANDS.items():
            assert f"{name}  " in text and line in text


class TestShownDefaults:
    """The defaults and choices the options show are their owners' (copied into the light
    :mod:`arena.cli._options` so that help imports no owner)."""

    def test_match_settings(self) -> None:
        from arena import dealer
        from arena.tournament import Timeouts, TournamentConfig

        assert dealer.HANDS_PER_MATCH == _options.HANDS_PER_MATCH
        assert TournamentConfig.hands_per_match == _options.HANDS_PER_MATCH
        assert TournamentConfig.stack == _options.STACK
        assert dealer.MatchSettings.starting_stack == _options.STACK
        assert Timeouts.action == _options.ACTION_TIMEOUT
        assert Timeouts.time_bank == _options.TIME_BANK
        assert Timeouts.wall_budget == _options.WALL_BUDGET
        assert Timeouts.fault_limit == _options.FAULT_LIMIT
        assert Timeouts.startup == _options.STARTUP_TIMEOUT
        assert Timeouts.hello == _options.HELLO_TIMEOUT
        assert Timeouts.on_fault_limit.value == _options.ON_FAULT_LIMIT
        assert [o.value for o in dealer.OnFaultLimit] == list(_options.ON_FAULT_LIMITS)

    def test_sandbox_choices(self) -> None:
        from arena.sandbox import SANDBOX_CHOICES

        assert SANDBOX_CHOICES == _options.SANDBOX_CHOICES

    def test_dial_in(self) -> None:
        from arena.server import MAX_TABLES, RECONNECT_WINDOW

        assert RECONNECT_WINDOW == _options.RECONNECT_WINDOW
        assert MAX_TABLES == _options.MAX_TABLES

    def test_the_module_is_light(self) -> None:
        """The options module itself imports nothing heavy (checked in a fresh process)."""
        code = f"import sys, arena.cli._options; print(sorted(m for m in sys.modules if m.split('.')[0] in {HEAVY!r}))"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        assert "[]" == done.stdout.strip(), done.stderr
        assert _app.__name__ == "arena.cli._app"


def test_the_tournament_front_door_loads_each_name_on_first_use() -> None:
    """``arena.tournament``'s lazy names: the table, the ``TYPE_CHECKING`` block and
    ``__all__`` name the same things, and each name resolves to its module's object."""
    import ast
    import importlib

    import arena.tournament as tournament

    source = Path(tournament.__file__).read_text()
    checked = {
        alias.asname or alias.name
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "_TYPE_CHECKING"
        for inner in node.body
        if isinstance(inner, ast.ImportFrom)
        for alias in inner.names
    }
    exports = tournament._EXPORTS
    assert set(exports) == checked == set(tournament.__all__)
    for name, module in exports.items():
        assert getattr(tournament, name) is getattr(importlib.import_module(module), name)
