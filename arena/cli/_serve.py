"""``arena serve FILE --listen HOST:PORT``: a tournament whose ``remote`` bots dial in."""

from __future__ import annotations

from pathlib import Path

import click

from arena.cli._dial_in import DialIn, check_remote_seats, dial_in_options
from arena.cli._tournament import play_and_show
from arena.cli._watch import watch_option


@click.command("serve")
@click.argument("file", type=click.Path(path_type=Path))
@dial_in_options
@click.option(
    "--resume", is_flag=True, help="Finish the tournament in FILE (only unplayed matches)."
)
@click.option("--no-plugins", is_flag=True, help="Do not autoload third-party plugins.")
@watch_option
def serve(file: Path, dial_in: DialIn, resume: bool, no_plugins: bool, watch: str | None) -> None:
    """Run the tournament in FILE while its `remote = true` bots dial in at --listen.

    A match is played as soon as its bots are connected (the others go on); with nothing
    to play a "waiting for: ..." line names who is missing. Each bot needs a token from
    `arena bots add NAME`; a dropped bot's seat is held for --reconnect-window seconds.
    """
    from arena.tournament import TournamentConfigError, load_tournament

    if dial_in.listen is None:
        raise click.UsageError("give --listen HOST:PORT: where the remote bots dial in")
    try:
        config = load_tournament(file)
    except TournamentConfigError as error:
        raise click.ClickException(str(error)) from None
    fix = f"set `duplicate = false` in [tournament] of {config.source}"
    check_remote_seats(config.bots, duplicate=config.duplicate, fix=fix)
    play_and_show(file, resume=resume, no_plugins=no_plugins, watch=watch, dial_in=dial_in)


command = serve
