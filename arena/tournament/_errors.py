"""Finding the one error that matters inside Trio's exception groups.

Trio nurseries wrap whatever their tasks raise in a ``BaseExceptionGroup``, even a
single error. The runner and the command line want the error a user can act on (disk
full, a database that refuses a write, Ctrl-C) as one line, and any other error as the
full traceback it is (a bug). :func:`expected_error` draws that line once, for every
caller, instead of each special-casing one group shape.
"""

from __future__ import annotations


class TournamentError(Exception):
    """A tournament that cannot start or go on; the message says why and what to do."""


def leaves(error: BaseException) -> list[BaseException]:
    """Every exception that is not a group, in order, however deep the groups nest."""
    if isinstance(error, BaseExceptionGroup):
        found: list[BaseException] = []
        for inner in error.exceptions:
            found.extend(leaves(inner))
        return found
    return [error]


def expected_error(
    error: BaseException, types: type[BaseException] | tuple[type[BaseException], ...]
) -> BaseException | None:
    """The first leaf of ``error`` if every leaf is one of ``types``; otherwise ``None``.

    ``None`` means something unexpected is in there too: re-raise the whole group so
    its traceback is seen.
    """
    found = leaves(error)
    if found and all(isinstance(leaf, types) for leaf in found):
        return found[0]
    return None


def interrupted(error: BaseException) -> bool:
    """Whether Ctrl-C (``KeyboardInterrupt``) is ``error`` or anywhere inside it."""
    return any(isinstance(leaf, KeyboardInterrupt) for leaf in leaves(error))
