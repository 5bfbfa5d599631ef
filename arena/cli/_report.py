"""``arena report``: write the tournament report, one self-contained HTML file, or with
``--bundle DIR`` the report and every replay page as one folder to publish."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena.cli._ratings import db_option
from arena.text import escape_untrusted

if TYPE_CHECKING:
    from arena.web import ReportRequest


def report_to(database: Path | str, request: ReportRequest, bundle: Path | None = None) -> Path:
    """Write the report (into the folder ``bundle`` with every replay, when given); every
    failure is one line (a :class:`click.ClickException`)."""
    from arena.tournament import StoreError
    from arena.web import ReportError, write_report
    from arena.web._bundle import write_bundle

    if isinstance(database, Path) and not database.is_file():
        raise click.ClickException(
            f"{database}: no such database (run a tournament first, or pass --db)"
        )
    try:
        if bundle is None:
            return write_report(database, request)
        written = write_bundle(database, request, bundle)
    except ReportError as error:
        raise click.ClickException(str(error)) from None
    except (StoreError, sqlite3.Error) as error:
        message = str(error) if isinstance(error, StoreError) else f"{database}: {error}"
        raise click.ClickException(f"{message} (is it a corrupt arena database?)") from None
    except OSError as error:
        where = error.filename or (bundle if bundle is not None else request.output)
        raise click.ClickException(f"{where}: cannot write: {error.strerror}") from None
    for note in written.notes:
        click.echo(escape_untrusted(note, one_line=True), err=True)
    click.echo(f"replays: {written.replays} in {bundle / 'replays'}")
    return written.report


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
    help="The HTML file to write (without --bundle).",
)
@click.option(
    "--bundle",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    metavar="DIR",
    help="Write DIR/index.html and every replay page (DIR/replays/) as one folder to "
    "publish: links relative inside it, no referee records, no hidden cards.",
)
def command(
    database: Path,
    tournaments: tuple[str, ...],
    game_type: str | None,
    output: Path,
    bundle: Path | None,
) -> None:
    """Write the report: leaderboard, Elo over time, bankrolls, head to head, faults, replays.

    One HTML file that loads nothing from anywhere (CSS and charts inline), so it opens
    offline; links to each match's replay page where one was written. ``--bundle DIR``
    writes the report and a fresh spectator replay of every match into DIR instead.
    """
    from arena.web import ReportRequest

    request = ReportRequest(tournaments=tournaments, game_type=game_type, output=output)
    written = report_to(database, request, bundle)
    click.echo(f"report: {written}")
