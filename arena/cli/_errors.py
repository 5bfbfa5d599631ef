"""User errors and Ctrl-C as one line and an exit status, never a traceback.

:func:`user_errors` wraps a command's work: an error the user can act on (a tournament
file, the database, a folder that cannot be written, a bot that did not start) becomes
``Error: <one line>`` and exit status 1, even when Trio delivers it inside an
exception group; Ctrl-C becomes one line on stderr and exit status 130 (128 + SIGINT,
what shells report). Anything else is a bug and keeps its traceback.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click


def user_error_types() -> tuple[type[BaseException], ...]:
    """Errors whose message is written for the user: shown as they are.

    Imported when an error is on its way (the dealer and tournaments are loaded by then),
    so that a command's help imports neither.
    """
    from arena.dealer import BotStartError, DealKeyError
    from arena.tournament import StoreError, TournamentConfigError, TournamentError

    return (
        TournamentError,
        TournamentConfigError,
        StoreError,
        BotStartError,
        DealKeyError,
        click.ClickException,
    )


class Interrupted(click.ClickException):
    """Ctrl-C: the message goes to stderr as it is, and the exit status is 130."""

    exit_code = 130

    def show(self, file=None) -> None:
        click.echo(self.format_message(), err=True)


def one_line(text: str) -> str:
    """``text`` on one line, control characters escaped (it may quote a bot's output)."""
    out = []
    for ch in text.replace("\r\n", "\n").replace("\n", " | "):
        out.append(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii"))
    return "".join(out)


@contextmanager
def user_errors(on_interrupt: Callable[[], str]) -> Iterator[None]:
    """Turn user errors and Ctrl-C inside the block into one line and an exit status.

    ``on_interrupt`` gives the line for Ctrl-C, e.g. what was kept and how to go on.
    """
    try:
        yield
    except BaseException as error:
        from arena.tournament._errors import expected_error, interrupted

        if interrupted(error):
            raise Interrupted(on_interrupt()) from None
        found = expected_error(error, user_error_types())
        if found is None:
            raise
        if isinstance(found, click.ClickException) and found is error:
            raise
        if isinstance(found, click.ClickException):
            raise found from None
        raise click.ClickException(one_line(str(found))) from None
