"""The hand replayer: one static, self-contained HTML page per match (issue 10 item 2).

The page is rendered from :func:`arena.web.public_hand` records only, so what it holds
is what a spectator may see (``reveal=True``, a director's replay after the event, adds
every card and says so in a banner). Jinja2 autoescapes everything; the records travel
as JSON in a ``<script type="application/json">`` whose ``<``, ``>`` and ``&`` are
written as ``\\u003c`` ... so no bot name can close the script; the page's own script
puts text in with ``textContent`` only. Nothing is fetched: CSS and JS are inline and a
Content-Security-Policy forbids any request.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from arena.web._public import public_match

REPLAY_FILE = "replay.html"
"""The replayer's file name in a match folder, next to ``hands.phhs``."""


@cache
def _template() -> jinja2.Template:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("arena.web", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    )
    return env.get_template("replay.html.j2")


def script_json(value: Any) -> Markup:
    """``value`` as compact JSON that is safe inside a ``<script>`` element."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, escaped)
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return Markup(text)  # every character HTML could read is escaped above


def _compact(hand: dict[str, Any]) -> dict[str, Any]:
    """The hand with each step's empty fields left out (a quarter of the page); the
    page's script puts them back (null, [])."""
    steps = [{k: v for k, v in step.items() if v is not None and v != []} for step in hand["steps"]]
    return {**hand, "steps": steps}


def _summary(hand: dict[str, Any]) -> str:
    """The hand's outcome in words, for the table of hands (escaped by the template)."""
    ends = [step["text"] for step in hand["steps"] if step["kind"] in ("win", "dead")]
    return "; ".join(ends) or "no result"


def render_replay(hands: Sequence[dict[str, Any]], *, title: str, reveal: bool) -> str:
    """The replayer page for ``hands`` (records of :func:`arena.web.public_hand`).

    ``reveal`` must say whether the records were built with ``reveal=True``: a page
    claiming the spectator's view refuses records holding hidden cards.
    """
    if not reveal and any(hand.get("reveal") for hand in hands):
        raise ValueError("a spectator's replay cannot hold a director's records (reveal)")
    rows = [{"number": h["number"], "seats": h["seats"], "summary": _summary(h)} for h in hands]
    return _template().render(
        title=title, reveal=reveal, hands=rows, data=script_json([_compact(hand) for hand in hands])
    )


def write_replay(match_folder: Path, *, reveal: bool = False, output: Path | None = None) -> Path:
    """Write the replayer of the match in ``match_folder`` (its ``hands.phhs``).

    The file goes next to ``hands.phhs`` as ``replay.html`` unless ``output`` is given,
    and is created 0600 like every record of a match folder. Returns its path; raises
    :class:`arena.history.PhhError` when a hand does not replay, ``OSError`` on I/O.
    """
    folder = Path(match_folder)
    hands = public_match(folder / "hands.phhs", reveal=reveal)
    kind = "director's replay" if reveal else "replay"
    page = render_replay(hands, title=f"{folder.name}: {kind}", reveal=reveal)
    target = output if output is not None else folder / REPLAY_FILE
    return _write_private(target, page)


def _write_private(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` as a 0600 file (replacing any earlier one)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)
    return path
