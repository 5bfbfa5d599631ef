"""The store: every result of every tournament in one database (SQLite by default, a
shared PostgreSQL for a league), its schema and migrations, the writes of a finished
match, the readers behind standings and ratings, and the locks and owner stamps that
keep two tournaments off one database or records folder.

It may import ``arena.ratings``, ``arena.stats`` and ``arena.text``; it never imports the
dealer, the sandbox, tournaments or the command line (a dealer's result reaches it as
plain :class:`SeatResult` rows, built by ``arena.tournament``).
"""

from arena.store._schema import NOT_STARTED as NOT_STARTED
from arena.store._schema import AlreadyRecorded as AlreadyRecorded
from arena.store._schema import BotFaults as BotFaults
from arena.store._schema import ClaimError as ClaimError
from arena.store._schema import MatchRow as MatchRow
from arena.store._schema import RatingRow as RatingRow
from arena.store._schema import RatingUpdate as RatingUpdate
from arena.store._schema import SeatResult as SeatResult
from arena.store._schema import SeatRow as SeatRow
from arena.store._schema import StoreError as StoreError
from arena.store._schema import TournamentExists as TournamentExists
from arena.store._schema import TournamentRow as TournamentRow
from arena.store._schema import UnknownMatch as UnknownMatch
from arena.store._store import Store as Store

__all__ = [
    "NOT_STARTED",
    "AlreadyRecorded",
    "BotFaults",
    "ClaimError",
    "MatchRow",
    "RatingRow",
    "RatingUpdate",
    "SeatResult",
    "SeatRow",
    "Store",
    "StoreError",
    "TournamentExists",
    "TournamentRow",
    "UnknownMatch",
]
