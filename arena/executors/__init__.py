"""Where a tournament's matches run, beyond the coordinator's own process (issue 12).

Layer 6, above :mod:`arena.tournament` (which owns the seam: ``MatchSpec``,
``MatchOutcome``, the ``Executor`` protocol and the in-process executor) and below the
command line. :class:`ProcessExecutor` plays matches in local worker processes
(:mod:`arena.executors.worker`), each with its own bots. May import the tournament, the
dealer and below; the tournament never imports this package.
"""

from arena.executors._pool import MAX_ATTEMPTS as MAX_ATTEMPTS
from arena.executors._pool import WORKER_COMMAND as WORKER_COMMAND
from arena.executors._pool import ProcessExecutor as ProcessExecutor
from arena.executors._pool import executor_for as executor_for

__all__ = ["MAX_ATTEMPTS", "WORKER_COMMAND", "ProcessExecutor", "executor_for"]
