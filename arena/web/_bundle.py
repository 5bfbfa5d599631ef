"""``arena report --bundle DIR``: the report and every replay page as one folder to publish.

The folder holds ``index.html`` (the report) and ``replays/NNNN-KEY.html`` (each match's
spectator replayer, rendered afresh from its ``hands.phhs`` with ``reveal=False``: no
hidden card). Nothing of the referee's records is copied: no ``log.jsonl``, no
``events.jsonl``, no hand histories, no deal key, no bot's raw log (the report quotes the
end of each stderr log escaped, with card-like tokens blotted out). Every link is relative
inside the folder, so it can be moved or uploaded as it is; its files are 0644 (a
record's are 0600: a bundle is meant to be read by others).
"""

from __future__ import annotations

import dataclasses
import os
import re
from pathlib import Path
from urllib.parse import quote

from arena.history import PhhError
from arena.store._schema import NOT_STARTED
from arena.tournament import Store
from arena.web._replay_page import write_replay
from arena.web._report import ReportRequest, render_report

INDEX = "index.html"
REPLAYS = "replays"


@dataclasses.dataclass(frozen=True)
class Bundle:
    """What :func:`write_bundle` wrote: the report's path, the replays, the notes."""

    report: Path
    replays: int
    notes: list[str]


def _file_name(n: int, key: str) -> str:
    """A replay's file name: its number, then the match key as safe characters."""
    return f"{n:04d}-{re.sub(r'[^A-Za-z0-9_-]+', '_', key)[:60]}.html"


def write_bundle(database: Path | str, request: ReportRequest, folder: Path) -> Bundle:
    """Write the report of ``request`` and the replay of each of its matches into ``folder``.

    Raises :class:`StoreError`, :class:`ReportError` (as :func:`write_report`) or
    ``OSError``; a match whose replay cannot be made is a note and has no link.
    """
    pages = folder / REPLAYS
    pages.mkdir(parents=True, exist_ok=True)
    links: dict[str, str] = {}
    notes: list[str] = []
    with Store.open(database, create=False) as store:
        wanted = set(request.tournaments)
        rows = [
            row
            for row in store.match_rows(game_type=request.game_type)
            if (not wanted or row.tournament in wanted) and row.reason != NOT_STARTED
        ]
        for n, row in enumerate(rows, 1):
            hands = Path(row.records_dir) / "hands.phhs"
            if not hands.is_file():
                continue
            page = pages / _file_name(n, row.key)
            try:
                write_replay(hands.parent, reveal=False, output=page)
            except (PhhError, OSError) as error:
                notes.append(f"note: no replay page for {row.records_dir}: {error}")
                continue
            os.chmod(page, 0o644)
            links[row.records_dir] = f"{REPLAYS}/{quote(page.name)}"
        report = folder / INDEX
        html = render_report(store, dataclasses.replace(request, output=report, replays=links))
    report.write_text(html, encoding="utf-8")
    os.chmod(report, 0o644)
    return Bundle(report, len(links), notes)


__all__ = ["Bundle", "write_bundle"]
