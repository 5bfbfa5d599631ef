"""``arena demo``: a round robin of the example bots, ending with the leaderboard."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from arena.cli._errors import user_errors
from arena.cli._report import report_to
from arena.cli._tournament import demo_config, interrupted_line, play_tournament

if TYPE_CHECKING:
    from arena.tournament import TournamentConfig

DEMO_FILE = Path("examples_tournaments/demo.toml")


@click.command("demo")
@click.option(
    "--file",
    "file",
    type=click.Path(path_type=Path),
    default=DEMO_FILE,
    show_default=True,
    help="The tournament to play.",
)
@click.option(
    "--hands", type=click.IntRange(2), default=None, help="Hands per match (default: the file's)."
)
@click.option(
    "--db",
    "database",
    type=click.Path(path_type=Path),
    default=None,
    help="SQLite file (default: the file's).",
)
@click.option(
    "--out",
    "output",
    type=click.Path(path_type=Path),
    default=None,
    help="Records folder (default: the file's).",
)
@click.option("--no-plugins", is_flag=True, help="Do not autoload third-party plugins.")
def command(
    file: Path, hands: int | None, database: Path | None, output: Path | None, no_plugins: bool
) -> None:
    """Play a round robin among the example bots (the Node bot too when Node.js is installed).

    Each run is a new tournament in the same database, so the ratings build up across
    runs; `arena ratings` prints them again later. Ends by writing the report of every
    tournament in the database (`report.html` beside it) and printing its path.
    """
    from rich.console import Console

    from arena.cli._ratings import standings_table
    from arena.web import ReportRequest

    config = demo_config(file, None)
    changes: dict[str, Any] = {}
    if hands is not None:
        changes["hands_per_match"] = hands
    if database is not None:
        changes["database"] = database.resolve()
    if output is not None:
        changes["output"] = output.resolve()
    config = dataclasses.replace(config, **changes)
    console = Console()
    with user_errors(lambda: interrupted_line(config, resume_hint=False)):
        standings = play_tournament(config, resume=False, no_plugins=no_plugins, console=console)
    console.print(
        standings_table(
            standings,
            f"leaderboard: {standings.game_type}, every tournament in {config.database_name}",
        )
    )
    console.print(
        "Elo: Bradley-Terry fit over every stored duplicate block, scored by margin, anchored at "
        "random = 1000. mbb/hand: milli-big-blinds won per hand. Intervals are 95%. "
        "`arena ratings --pairs --los` shows head to head."
    )
    report = report_to(
        config.database,
        ReportRequest(game_type=standings.game_type, output=_report_folder(config) / "report.html"),
    )
    console.print(
        f"report: {report.resolve()} (one file: open it in a browser, offline)",
        markup=False,
        highlight=False,
    )


def _report_folder(config: TournamentConfig) -> Path:
    """Beside the SQLite file, or beside the records for a PostgreSQL database."""
    return config.database.parent if isinstance(config.database, Path) else config.output.parent
