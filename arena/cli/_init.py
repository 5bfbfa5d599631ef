"""``arena tournament init --bots-dir DIR``: a tournament file for a folder of student bots
(issue 13 item 5).

One sub-folder per student. A sub-folder with a ``bot.toml`` becomes ``folder = ...``;
one with a single recognisable program becomes a command run in that folder
(``bot.py``: ``{python} bot.py``; ``bot.js``: ``node bot.js``, requiring node); anything
else is skipped with a note saying what it lacks. Names come from the folders,
sanitised to bot names and kept unique. The file written is an ordinary tournament
file: edit it, then ``arena tournament run FILE``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import click
import tomli_w

from arena.cli._tournament import tournament
from arena.text import escape_untrusted

_UNSAFE = re.compile(r"[^A-Za-z0-9_.\-]+")
BASELINES = ("random", "calling-station", "rule-based")
"""The graded built-in bots a league can include (``--baselines``), weakest first."""

_HEADER = """\
# A league of student bots, written by `arena tournament init --bots-dir {bots_dir}`.
# Each [[bots]] entry is one sub-folder: `folder` (a bot.toml says how to build and run
# it) or `command` (run in `workdir`). Edit freely, then:
#
#   arena tournament run {out}       # again each week: `arena tournament resume` finishes a run
#
# The seed is drawn on the first run and stored with the results.

"""


def sanitised(name: str) -> str:
    """``name`` as a bot name: runs of other characters become ``-``, at most 64, no leading dot."""
    clean = _UNSAFE.sub("-", name).strip("-.") or "bot"
    return clean[:64].rstrip("-.") or "bot"


def _entry(folder: Path, out_dir: Path) -> tuple[dict[str, Any] | None, str | None]:
    """The ``[[bots]]`` keys for one student's folder (name aside), or why it is skipped."""
    from arena.tournament import MANIFEST, ManifestError, load_manifest  # when it runs

    where = os.path.relpath(folder, out_dir)
    if (folder / MANIFEST).is_file():
        try:
            load_manifest(folder)
        except ManifestError as error:
            return None, str(error)
        return {"folder": where}, None
    if (folder / "bot.py").is_file():
        return {"command": "{python} bot.py", "workdir": where}, None
    if (folder / "bot.js").is_file():
        note = None if (folder / "node_modules").is_dir() else "run `npm ci` there first"
        return {"command": "node bot.js", "workdir": where, "requires": "node"}, note
    if (folder / "CMakeLists.txt").is_file():
        return None, (
            f"a CMake project without a {MANIFEST}: add one saying how to build and run it "
            "(`arena new-bot --lang cpp` writes an example)"
        )
    return None, f"no {MANIFEST}, bot.py, bot.js or CMakeLists.txt"


def scan(bots_dir: Path, out_dir: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """The bot entries for ``bots_dir``'s sub-folders, and a note per problem."""
    bots: list[dict[str, Any]] = []
    notes: list[str] = []
    # the baselines' names are never a student's (not even in other letter case): a
    # student's results must not read as the built-in bot's (issue 13 audit)
    taken = set(BASELINES)
    for folder in sorted(p for p in bots_dir.iterdir() if p.is_dir()):
        if folder.name.startswith("."):
            continue
        shown = escape_untrusted(folder.name)
        entry, note = _entry(folder.resolve(), out_dir)
        if entry is None:
            notes.append(f"skipped {shown}: {escape_untrusted(note or '')}")
            continue
        if note is not None:
            notes.append(f"{shown}: {note}")
        base = sanitised(folder.name)
        if base.lower() in BASELINES:  # not calling-station-2: that reads as a second copy
            base = f"student-{base}"
        name, k = base, 2
        while name.lower() in taken:
            name, k = f"{base[:60]}-{k}", k + 1
        taken.add(name.lower())
        if sanitised(folder.name).lower() in BASELINES:
            notes.append(f"{shown} is named {name!r} (a baseline has its name)")
        elif name != folder.name:
            notes.append(f"{shown} is named {name!r}")
        bots.append({"name": name, **entry})
    return bots, notes


DEFAULT_DATABASE = "arena-data/arena.db"
"""Where a league is stored unless its file says otherwise: the same default as
``tournament.database`` (:mod:`arena.tournament._config_load`) and ``--db`` of
``arena ratings`` and ``arena report`` (issue 21 item 3)."""


def database_from(out: Path) -> str:
    """``tournament.database`` for a file written at ``out``: the working folder's
    :data:`DEFAULT_DATABASE`, relative to the file (as the file's paths are read), so
    ``arena ratings`` and ``arena report`` run here find it with no ``--db``."""
    target = Path.cwd() / DEFAULT_DATABASE
    return Path(os.path.relpath(target, out.resolve().parent)).as_posix()


def league_file(
    bots: list[dict[str, Any]],
    name: str,
    *,
    baselines: bool,
    hands: int,
    database: str = DEFAULT_DATABASE,
) -> dict[str, Any]:
    """The tournament file's tables: a duplicate round robin, rated, anchored when possible."""
    entries = list(bots)
    data: dict[str, Any] = {
        "tournament": {
            "name": name,
            "format": "round_robin",
            "hands_per_match": hands,
            "duplicate": True,
            "rounds": 1,
            "output": "runs",
            "database": database,
        },
        "timeouts": {"action": 2.0, "startup": 30.0},
    }
    if baselines:  # scan() keeps their names free
        entries += [{"name": policy, "builtin": policy} for policy in BASELINES]
        data["ratings"] = {"anchor": "calling-station", "anchor_rating": 1200}
    data["bots"] = entries
    return data


def _toml(data: dict[str, Any]) -> str:
    """``data`` as TOML with each bot a ``[[bots]]`` table, as the docs write them."""
    tables = {key: value for key, value in data.items() if key != "bots"}
    bots = "".join(f"\n[[bots]]\n{tomli_w.dumps(bot)}" for bot in data["bots"])
    return tomli_w.dumps(tables) + bots


@tournament.command("init")
@click.option(
    "--bots-dir",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    required=True,
    help="One sub-folder per student bot.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path, dir_okay=False),
    default=Path("tournament.toml"),
    show_default=True,
)
@click.option("--name", help="The tournament's name (default: the bots folder's).")
@click.option("--hands", type=click.IntRange(1, 100_000), default=200, show_default=True)
@click.option(
    "--baselines/--no-baselines",
    default=True,
    show_default=True,
    help="Add the built-in random, calling-station and rule-based bots (calling-station anchors the ratings).",
)
@click.option("--force", is_flag=True, help="Overwrite FILE if it exists.")
def command(
    bots_dir: Path, out: Path, name: str | None, hands: int, baselines: bool, force: bool
) -> None:
    """Write a tournament file for a folder of student bots (one sub-folder each)."""
    if out.exists() and not force:
        raise click.ClickException(f"{out}: already exists (--force to overwrite)")
    league = sanitised(name or bots_dir.resolve().name)
    bots, notes = scan(bots_dir, out.resolve().parent)
    for note in notes:
        click.echo(f"note: {note}", err=True)
    if len(bots) + (len(BASELINES) if baselines else 0) < 2:
        raise click.ClickException(f"{bots_dir}: fewer than two bots to play (see the notes above)")
    data = league_file(bots, league, baselines=baselines, hands=hands, database=database_from(out))
    header = _HEADER.format(bots_dir=bots_dir, out=out)
    try:
        out.write_text(header + _toml(data), encoding="utf-8")
    except OSError as error:
        raise click.ClickException(f"{out}: cannot write: {error.strerror}") from None
    click.echo(f"wrote {out}: {len(bots)} student bots" + (" and 3 baselines" if baselines else ""))


commands = (tournament,)
