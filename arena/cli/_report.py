"""``arena report``: write the tournament report, one self-contained HTML file."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena.cli._ratings import db_option

if TYPE_CHECKING:
    from arena.web import ReportRequest


def report_to(database: Path | str, request: ReportRequest) -> Path:
    """Write the report; every failure is one line (a :class:`click.ClickException`)."""
    from arena.tournament import StoreError
    from arena.web import ReportError, write_report

    if isinstance(database, Path) and not database.is_file():
        raise click.ClickException(
            f"{database}: no such database (run a tournament first, or pass --db)"
        )
    try:
        return write_report(database, request)
    except ReportError as error:
        raise click.ClickException(str(error)) from None
    except (StoreError, sqlite3.Error) as error:
        message = str(error) if isinstance(error, StoreError) else f"{database}: {error}"
        raise click.ClickException(f"{message} (is it a corrupt arena database?)") from None
    except OSError as error:
        raise click.ClickException(f"{request.output}: cannot write: {error.strerror}") from None


@click.command("report")
@db_option
@click.option(
    "--tournament",
    "tournaments",
    multiple=True,
    metavar="NAME",
    help="Only this tournament's matches (repeat for several); default: every one.",
)
@click.option("--game-type", default=None, help="Only this game type; default: every one stored.")
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("report.html"),
    show_default=True,
    help="The HTML file to write.",
)
def command(
    database: Path, tournaments: tuple[str, ...], game_type: str | None, output: Path
) -> None:
    """Write the report: leaderboard, Elo over time, bankrolls, head to head, faults, replays.

    One HTML file that loads nothing from anywhere (CSS and charts inline), so it opens
    offline; links to each match's replay page where one was written.
    """
    from arena.web import ReportRequest

    request = ReportRequest(tournaments=tournaments, game_type=game_type, output=output)
    written = report_to(database, request)
    click.echo(f"report: {written}")
