"""The dial-in server (layer 5, beside the tournament): the ``Arena`` gRPC service that
bots on other machines connect to, with tokens, TLS, limits and held seats.

The dealer only ever sees :class:`arena.dealer.BotDriver` objects; this package makes
drivers out of the streams that bots open, and the command line hands them to matches
and tournaments (neither of which imports this package).
"""

__all__: list[str] = []
