"""Web views (layer 5, beside the plugins): the hand replayer, the tournament report and
the live spectator page, all built from one server-side public view of each hand."""

__all__: list[str] = []
