"""The reference and the architecture pages agree with the code (issue 20 items 4 and 5).

- docs/reference.md has a section for every ``arena`` command, naming each of its options,
  read from the command line's own (click) parsers;
- it names every key the tournament file's loader accepts, read from the loader itself;
- docs/architecture.md's layer table holds the ranks of ``LAYERS`` in
  tests/cli/test_import_graph.py, the table that test enforces;
- the README's relative links lead to files that exist.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = (ROOT / "docs" / "reference.md").read_text(encoding="utf-8")
ARCHITECTURE = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")


def _commands() -> Iterator[tuple[str, click.Command]]:
    from arena.cli import _app, cli

    register = getattr(_app, "_register", None)
    if register is not None:
        register()

    def walk(command: click.Command, path: str) -> Iterator[tuple[str, click.Command]]:
        if isinstance(command, click.Group):
            context = click.Context(command)
            for name in command.list_commands(context):
                sub = command.get_command(context, name)
                assert sub is not None, name
                yield from walk(sub, f"{path} {name}")
        else:
            yield path, command

    yield from walk(cli, "arena")


COMMANDS = dict(_commands())


def section(text: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading of the same or a higher level."""
    match = re.search(rf"^{re.escape(heading)}\s*$", text, flags=re.M)
    assert match, f"no heading {heading!r}"
    level = len(heading.split(" ", 1)[0])
    end = re.compile(rf"^#{{1,{level}}} ", flags=re.M).search(text, match.end())
    return text[match.end() : end.start() if end else len(text)]


def test_there_are_commands_to_check() -> None:
    """The walk sees the command tree (a lazy group that hid it would pass every check)."""
    assert {"arena match", "arena tournament run", "arena bots add"} <= set(COMMANDS)


@pytest.mark.parametrize("path", sorted(COMMANDS))
def test_every_option_of_every_command_is_in_the_reference(path: str) -> None:
    """Each option (and its --no- form) appears, in code, in the command's own section."""
    text = section(REFERENCE, f"### `{path}`")
    for parameter in COMMANDS[path].params:
        if not isinstance(parameter, click.Option):
            continue
        for name in (*parameter.opts, *parameter.secondary_opts):
            assert f"`{name}`" in text, f"{path}: {name} is not in docs/reference.md"


def test_the_reference_has_no_command_that_does_not_exist() -> None:
    """A section for a removed command fails too."""
    listed = set(re.findall(r"^### `(arena [a-z -]+)`$", REFERENCE, flags=re.M))
    assert listed == set(COMMANDS)


def _tournament_keys() -> dict[str, tuple[str, ...]]:
    """Every prefix and the keys the loader accepts there, recorded from the loader."""
    from arena.tournament import _config_load, parse_tournament

    seen: dict[str, tuple[str, ...]] = {}
    original = _config_load._Parser.known

    def known(self, table, prefix, allowed):  # type: ignore[no-untyped-def]
        seen[re.sub(r"\[\d+\]", "", prefix)] = tuple(allowed)
        return original(self, table, prefix, allowed)

    text = (ROOT / "examples_tournaments" / "demo.toml").read_text(encoding="utf-8")
    text += '\n[[bots]]\nname = "limited"\ncommand = "{python} ../examples_bots/random_bot.py"\n[bots.limits]\nmemory_mb = 512\n'
    _config_load._Parser.known = known  # type: ignore[method-assign]
    try:
        parse_tournament(text, "demo.toml", base_dir=ROOT / "examples_tournaments")
    finally:
        _config_load._Parser.known = original  # type: ignore[method-assign]
    return seen


def test_every_key_of_the_tournament_file_is_in_the_reference() -> None:
    """Each table's keys, as the loader accepts them, are rows of the reference's tables."""
    keys = _tournament_keys()
    assert {"", "tournament.", "game.", "timeouts.", "ratings.", "bots.", "bots.limits."} <= set(
        keys
    )
    text = section(REFERENCE, "## The tournament file")
    for prefix, allowed in keys.items():
        if not prefix:
            continue
        heading = f"### `[[{prefix[:-1]}]]`" if prefix == "bots." else f"### `[{prefix[:-1]}]`"
        table = section(text, heading)
        for key in allowed:
            assert re.search(rf"^\| [^|]*`{key}`", table, flags=re.M), f"{prefix}{key}"


def test_the_architecture_table_holds_the_import_graph_ranks() -> None:
    """docs/architecture.md's layer table and LAYERS agree, package by package."""
    import importlib.util

    path = Path(__file__).parent / "cli" / "test_import_graph.py"
    spec = importlib.util.spec_from_file_location("_import_graph_ranks", path)
    assert spec is not None and spec.loader is not None
    graph = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(graph)  # by path: works whatever sys.path pytest was given
    LAYERS = graph.LAYERS

    rows = re.findall(r"^\| (\d+) \| `([a-z]+)` \|", ARCHITECTURE, flags=re.M)
    assert rows, "no layer table in docs/architecture.md"
    table = {package: int(rank) for rank, package in rows}
    assert len(rows) == len(table), "a package is listed twice"
    assert LAYERS == table


def test_the_readme_links_lead_to_files_that_exist() -> None:
    """Every relative link of the front page resolves (the site's build checks docs/)."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    assert links
    for link in links:
        if "://" not in link:
            assert (ROOT / link).exists(), link
