"""The dial-in server (beside the tournament): the ``Arena`` gRPC service that
bots on other machines connect to, with tokens, TLS, limits and held seats.

The dealer only ever sees :class:`arena.dealer.BotDriver` objects; this package makes
drivers out of the streams that bots open, and the command line hands them to matches
and tournaments (neither of which imports this package).

It may import ``dealer``, ``protocol``, ``text``; never tournaments (the command line
joins them).
"""

from arena.server._arena import MAX_TABLES as MAX_TABLES
from arena.server._arena import ArenaServer as ArenaServer
from arena.server._arena import ServerError as ServerError
from arena.server._arena import ServerSettings as ServerSettings
from arena.server._arena import open_arena_server as open_arena_server
from arena.server._listen import ListenError as ListenError
from arena.server._listen import is_loopback as is_loopback
from arena.server._remote import LeasedSeat as LeasedSeat
from arena.server._remote import RemoteBot as RemoteBot
from arena.server._seat import RECONNECT_WINDOW as RECONNECT_WINDOW
from arena.server._seat import HeldSeat as HeldSeat
from arena.server._tokens import Identity as Identity
from arena.server._tokens import TokenStore as TokenStore
from arena.server._tokens import TokenStoreError as TokenStoreError
from arena.server._tokens import TokenVerifier as TokenVerifier

__all__ = [
    "MAX_TABLES",
    "RECONNECT_WINDOW",
    "ArenaServer",
    "HeldSeat",
    "Identity",
    "LeasedSeat",
    "ListenError",
    "RemoteBot",
    "ServerError",
    "ServerSettings",
    "TokenStore",
    "TokenStoreError",
    "TokenVerifier",
    "is_loopback",
    "open_arena_server",
]
