"""The text an environment renders: the public table, and one seat's own cards at most.

Built from a :class:`~arena.engine.SeatView` (the engine's boundary between public and
private), never from the :class:`~arena.engine.Hand`, so no other seat's hidden cards can
reach the screen: only cards shown at the showdown, and ``own``'s hole cards when a
single learner is rendered (:func:`arena.rl.gym_env`), in :func:`~arena.rl.sorted_cards`
order, the order the discard labels of :data:`~arena.rl.ACTION_NAMES` count them in.
"""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine import SeatView
from arena.rl._game import DrawGame
from arena.rl._spaces import sorted_cards


def table_text(game: DrawGame, names: Sequence[str], own: int | None = None) -> str:
    """The hand's id, phase and pot, then a line per seat; ``own``'s cards, others' hidden."""
    view = game.view(0 if own is None else own)
    to_act = "" if view.to_act is None else f", {names[view.to_act]} to act"
    phase = view.phase.name.lower().replace("_", " ")
    lines = [f"{game.info()['hand_id']}: {phase}, pot {view.pot}{to_act}"]
    width = max(map(len, names))
    for seat, name in enumerate(names):
        lines.append(f"  {name:<{width}}  {_seat_text(view, seat, own)}")
    return "\n".join(lines)


def _seat_text(view: SeatView, seat: int, own: int | None) -> str:
    parts = [f"stack {view.stacks[seat]}", f"bet {view.bets[seat]}"]
    if seat == view.button:
        parts.insert(0, "button")
    if view.folded[seat]:
        parts.append("folded")
    drew = view.draw_counts[seat]
    if drew is not None:
        parts.append(f"drew {drew}")
    if view.payoffs is not None:
        parts.append(f"result {view.payoffs[seat]:+d}")
    if seat in view.shown:  # the cards last, so each is a word of its own
        parts.append("shows " + " ".join(map(str, view.shown[seat])))
    elif seat == own:
        parts.append("cards " + " ".join(map(str, sorted_cards(view.hole_cards))))
    return ", ".join(parts)
