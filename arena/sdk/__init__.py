"""The Python bot SDK: subclass :class:`Bot`, implement ``decide``, call :func:`run`.

It may import ``engine``, ``protocol``, ``text``; never the dealer.
"""

from arena.sdk._bot import Bot as Bot
from arena.sdk._bot import Decision as Decision
from arena.sdk._dial import DialError as DialError
from arena.sdk._dial import dial as dial
from arena.sdk._server import ADDRESS_ENV as ADDRESS_ENV
from arena.sdk._server import run as run
from arena.sdk._server import serve as serve

__all__ = ["ADDRESS_ENV", "Bot", "Decision", "DialError", "dial", "run", "serve"]
