"""Text a bot (or a file a bot could write) chose, made safe to show.

Everything the arena prints or logs that came from outside (a bot's name, its Hello,
its stderr, a gRPC status detail, a file name from a hand history) goes through
:func:`escape_untrusted` first, so no control sequence (ESC, BEL, a carriage return)
and no bidi override (U+202E) reaches a terminal as such.

It imports no other arena package.
"""

from arena.text._escape import escape_untrusted as escape_untrusted

__all__ = ["escape_untrusted"]
