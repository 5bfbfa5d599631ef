"""Where a tournament's matches run, beyond the coordinator's own process (issue 12).

Above :mod:`arena.tournament` (which owns the seam: ``MatchSpec``,
``MatchOutcome``, the ``Executor`` protocol and the in-process executor) and below the
command line. :class:`ProcessExecutor` plays matches in local worker processes
(:mod:`arena.executors.worker`), each with its own bots; :class:`RayExecutor` plays them
as Ray tasks on a cluster (``pip install 'arena[ray]'``, Ray imported only when used);
:func:`open_executor` gives the one a tournament file asks for (``tournament.executor``).
May import the tournament, the dealer and below; the tournament never imports this package.

It may import ``dealer``, ``store``, ``text``, ``tournament``; never the command line.
"""

from arena.executors._choose import executor_of as executor_of
from arena.executors._choose import open_executor as open_executor
from arena.executors._pool import MAX_ATTEMPTS as MAX_ATTEMPTS
from arena.executors._pool import WORKER_COMMAND as WORKER_COMMAND
from arena.executors._pool import ProcessExecutor as ProcessExecutor
from arena.executors._pool import executor_for as executor_for
from arena.executors._ray import RayExecutor as RayExecutor

__all__ = [
    "MAX_ATTEMPTS",
    "WORKER_COMMAND",
    "ProcessExecutor",
    "RayExecutor",
    "executor_for",
    "executor_of",
    "open_executor",
]
