"""``arena tournament run|resume``: competitions with a live leaderboard.

The command group is light to import (its help and usage errors, issue 20 item 3): the
session, the executors, the plugins and the terminal's live view are imported inside
the functions that run a tournament.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import click

from arena.cli._dial_in import DialIn, waiting_line
from arena.cli._errors import one_line, user_errors
from arena.cli._watch import watch_option

if TYPE_CHECKING:  # the session, the executors and the plugins load when a tournament runs
    from rich.console import Console, Group
    from rich.live import Live

    from arena.tournament import (
        BotSpec,
        Progress,
        Session,
        SessionResult,
        Standings,
        TournamentConfig,
    )


def _plugin_manager(no_plugins: bool):
    from arena.plugins import PluginError, get_plugin_manager

    try:
        return get_plugin_manager(autoload=not no_plugins)
    except PluginError as error:
        raise click.ClickException(str(error)) from None


def _opener(pm, config: TournamentConfig) -> Callable:
    """Every bot of the file, whatever its kind, opened through the driver plugins."""
    from arena.plugins import open_driver

    context = config.driver_context()

    def open_bot_entry(entry: BotSpec):
        return open_driver(pm, entry, context)

    return open_bot_entry


_NO_DIAL_IN = DialIn(None, Path("arena-data/tokens.json"), None, None, 30.0, 8)
"""No ``--listen``: a file with remote bots is refused with one line (use ``arena serve``)."""

WORKERS_NOTE = (
    "the live page and the plugins' hand hooks see no hands (each is dealt in a worker "
    "process); the leaderboard and every match's replay page are there as usual"
)
"""Why a tournament with workers shows no hands as they are played (issue 12 item 2)."""

NOT_STARTED_EXIT = 3
"""The exit status of a run or resume that left matches not started (a bot did not start)."""


def play_tournament(
    config: TournamentConfig,
    *,
    resume: bool,
    no_plugins: bool,
    console: Console,
    watch: str | None = None,
) -> Standings:
    """Run (or resume) ``config`` with a live leaderboard; return the final standings."""
    return _play_tournament(
        config, resume=resume, no_plugins=no_plugins, console=console, watch=watch
    ).standings


def _play_tournament(
    config: TournamentConfig,
    *,
    resume: bool,
    no_plugins: bool,
    console: Console,
    watch: str | None = None,
    dial_in: DialIn | None = None,
) -> SessionResult:
    """:func:`play_tournament`, returning the whole result (progress: the exit status);
    ``dial_in`` serves the remote bots (``arena serve``). The :class:`Session` owns every
    part of the run; this only hands it the plugins, the executor, the server and the
    page it asks for, and prints."""
    from arena.cli._dial_in import open_dial_in
    from arena.cli._replays import match_replay_note, write_tournament_replays
    from arena.cli._watch import live_view
    from arena.executors import open_executor
    from arena.plugins import tournament_observers
    from arena.tournament import Session

    pm = _plugin_manager(no_plugins)
    for note in config.executor_notes():
        console.print(f"note: {one_line(note)}", markup=False, highlight=False)
    if not config.in_process and watch is not None:  # hands are played elsewhere
        console.print(f"note: {_where(config)}: {WORKERS_NOTE}", markup=False)
    board = _Board(config, console)

    def finished(result: SessionResult) -> None:
        pm.hook.arena_tournament_finished(name=result.name, standings=list(result.standings.rows))

    session = Session(
        config,
        resume=resume,
        executor=open_executor(config),  # Ray: connected before the store is touched
        observers=tournament_observers(pm),
        on_progress=board.show,
        on_finished=finished,
        open_driver=_opener(pm, config),
        dial_in=lambda names: open_dial_in(dial_in or _NO_DIAL_IN, names, console),
        live_page=lambda: live_view(watch, config.name, console),
        replays=write_tournament_replays,
        match_replay=match_replay_note,
    )
    result = board.play(session)
    for note in result.replay_notes:
        console.print(note, markup=False, highlight=False)
    console.print(_recorded_line(config, result.progress), markup=False, highlight=False)
    return result


class _Board:
    """The terminal's live view of a session: notes, "waiting for" lines, the progress bar
    and the latest standings (refitted on the session's thread: the dealer never waits)."""

    def __init__(self, config: TournamentConfig, console: Console) -> None:
        self.config, self.console = config, console
        self.session: Session | None = None
        self.live: Live | None = None
        self.waiting: list[str] = []
        self.printed: object = None  # the RecordedMatch whose line is printed

    def play(self, session: Session) -> SessionResult:
        """Drive ``session`` (whose ``on_progress`` is :meth:`show`) under the live view."""
        import trio
        from rich.live import Live
        from rich.text import Text

        from arena.tournament import StoreError, TournamentError

        self.session = session

        async def drive() -> SessionResult:
            async with session:
                return await session.play()

        try:
            if not self.console.is_terminal:  # a log file, CI: a line per match (show)
                return trio.run(drive)
            with Live(
                Text("starting bots..."), console=self.console, transient=True, refresh_per_second=4
            ) as self.live:
                return trio.run(drive)
        except (TournamentError, StoreError) as error:
            raise click.ClickException(str(error)) from None

    def show(self, progress: Progress) -> None:
        """``on_progress``: print what is new, redraw the bar and the leaderboard."""
        from arena.tournament import game_type_of

        say = partial(self.console.print, markup=False, highlight=False)
        for note in progress.notes:
            say(f"note: {one_line(note)}")
        progress.notes = []
        if progress.waiting_for != self.waiting:
            self.waiting = list(progress.waiting_for)
            if self.waiting:
                server = self.session.remote_seats if self.session is not None else None
                say(waiting_line(self.waiting, server))
        if progress.recorded is not self.printed and not self.console.is_terminal:
            from arena.cli._progress_lines import match_line

            self.printed = progress.recorded
            if progress.recorded is not None:
                say(match_line(progress.recorded, progress.total), soft_wrap=True)
                self.console.file.flush()  # a log file shows each match as it is recorded
        if self.live is not None and self.session is not None:
            game_type = game_type_of(self.config.game)
            board = _leaderboard(
                self.config.name, game_type, progress, self.session.latest_standings
            )
            self.live.update(board)


def _where(config: TournamentConfig) -> str:
    """Where the matches are played, for the notes: ``workers = N`` or ``executor = 'ray'``."""
    return "executor = 'ray'" if config.executor == "ray" else f"workers = {config.workers}"


def _leaderboard(
    name: str, game_type: str, progress: Progress, standings: Standings | None
) -> Group:
    """The live view: a progress bar, what runs now with an ETA and the slowest bots, and
    the latest standings once there are any."""
    from rich.console import Group
    from rich.progress_bar import ProgressBar
    from rich.table import Table as RichTable
    from rich.text import Text

    from arena.cli._progress_lines import status_line
    from arena.cli._ratings import standings_table

    bar = RichTable.grid(padding=(0, 1))
    bar.add_row(
        Text(name, style="bold"),
        ProgressBar(total=max(progress.total, 1), completed=progress.done, width=40),
        Text(f"{progress.done}/{progress.total} matches"),
    )
    status = status_line(progress)
    head = [bar, Text(status, style="dim")] if status else [bar]
    if standings is None or not standings.rows:
        return Group(*head)
    return Group(*head, standings_table(standings, f"standings ({game_type}, this tournament)"))


def _recorded_line(config: TournamentConfig, progress: Progress) -> str:
    """The line after the tournament: how many matches are recorded, and any left to resume."""
    line = f"{config.name}: {progress.done}/{progress.total} matches recorded in {config.database_name}"
    if progress.not_started:
        line += (
            f"; {progress.not_started} not started ({_who(progress)} did not start): "
            f"`arena tournament resume {config.source}` tries again"
        )
    return line


def _who(progress: Progress) -> str:
    """The bots that did not start, by name (issue 21 item 3), else "a bot"."""
    from arena.tournament._standing_notes import printable_reason

    names = [printable_reason(name) for name in sorted(progress.did_not_start)]
    return ", ".join(names) or "a bot"


def _load(path: Path) -> TournamentConfig:
    from arena.tournament import TournamentConfigError, load_tournament

    try:
        return load_tournament(path)
    except TournamentConfigError as error:
        raise click.ClickException(str(error)) from None


@click.group("tournament")
def tournament() -> None:
    """Run tournaments from a TOML file (see examples_tournaments/)."""


def interrupted_line(
    config: TournamentConfig, *, resume_hint: bool = True, serving: bool = False
) -> str:
    """What Ctrl-C leaves: the matches recorded so far, and how to play the rest
    (``arena serve FILE --resume`` for a tournament whose bots dial in)."""
    from arena.tournament import Store, StoreError

    kept = "the matches recorded so far are kept"
    try:
        with Store.open(config.database, create=False) as store:
            row = store.get_tournament(config.name)
            if row is not None:
                total = len(store.schedule(row.id))
                done = total - len(store.pending_matches(row.id))
                kept = f"{done}/{total} matches are recorded"
    except (StoreError, OSError):
        pass
    where = f"in {config.database_name}"
    again = (
        f"arena serve {config.source} --resume --listen ..."
        if serving
        else f"arena tournament resume {config.source}"
    )
    hint = f"; `{again}` plays the rest" if resume_hint else ""
    return f"interrupted: {kept} {where}{hint}"


def play_and_show(
    file: Path,
    *,
    resume: bool,
    no_plugins: bool,
    watch: str | None = None,
    dial_in: DialIn | None = None,
) -> None:
    """Play the tournament in ``file`` and print the leaderboard (``tournament run|resume``,
    ``serve``); Ctrl-C and user errors are one line."""
    from rich.console import Console

    from arena.cli._bots import build_folder_bots
    from arena.cli._fault_summary import stored_trouble_lines

    config = _load(file)
    build_folder_bots(config.bots, strict=False, hidden=config.hidden_paths)  # issue 13 item 4
    console = Console()
    with user_errors(lambda: interrupted_line(config, serving=dial_in is not None)):
        result = _play_tournament(
            config,
            resume=resume,
            no_plugins=no_plugins,
            console=console,
            watch=watch,
            dial_in=dial_in,
        )
        _print_final(console, config, result)
    for line in stored_trouble_lines(config.database, config.name, result.progress.did_not_start):
        console.print(line, markup=False, highlight=False)  # who went wrong (issue 21 item 2)
    if result.progress.not_started:  # not finished: scripts can tell (the note above says why)
        raise SystemExit(NOT_STARTED_EXIT)


def _print_final(console: Console, config: TournamentConfig, result: SessionResult) -> None:
    """This tournament's standings, computed after its last match (as ``arena ratings
    --tournament NAME`` prints them), then the database's leaderboard if it holds more."""
    from arena.cli._ratings import print_standings
    from arena.tournament._standing_notes import unfinished_notes

    standings, mine = result.standings, result.tournament_standings
    if mine is not None:
        with_store = _unfinished(config, unfinished_notes)
        title = f"standings: {mine.game_type}, {config.name}: {mine.matches} matches"
        print_standings(console, mine, title, unfinished=with_store)
        if mine.matches == standings.matches:
            return  # the database holds this tournament alone: the same table
    title = f"leaderboard: {standings.game_type}, all tournaments in {_short_name(config)}"
    print_standings(console, standings, title)


def _unfinished(config: TournamentConfig, notes: Callable) -> list[str]:
    """This tournament's "unfinished: ..." line, if it is (read from its database)."""
    from arena.tournament import Store, StoreError

    try:
        with Store.open(config.database, create=False) as store:
            return notes(store, None, [config.name])
    except (StoreError, OSError):
        return []


@tournament.command("run")
@click.argument("file", type=click.Path(path_type=Path))
@click.option(
    "--no-plugins", is_flag=True, help="Do not autoload third-party plugins (reproducible runs)."
)
@watch_option
def run_command(file: Path, no_plugins: bool, watch: str | None) -> None:
    """Schedule and play the tournament in FILE, then print the leaderboard."""
    play_and_show(file, resume=False, no_plugins=no_plugins, watch=watch)


@tournament.command("resume")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--no-plugins", is_flag=True, help="Do not autoload third-party plugins.")
@watch_option
def resume_command(file: Path, no_plugins: bool, watch: str | None) -> None:
    """Finish an interrupted tournament: play only the matches with no recorded result."""
    play_and_show(file, resume=True, no_plugins=no_plugins, watch=watch)


def demo_config(file: Path, name: str | None) -> TournamentConfig:
    """The demo tournament, renamed so every run adds a new tournament to the stored pool."""
    config = _load(file)
    return dataclasses.replace(config, name=name or time.strftime(f"{config.name}-%Y%m%d-%H%M%S"))


commands = (tournament,)


def _short_name(config: TournamentConfig) -> str:
    """The SQLite file's name, or the PostgreSQL URL without its password."""
    return config.database.name if isinstance(config.database, Path) else config.database_name
