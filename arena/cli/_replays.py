"""Each match folder gets its hand replayer (``replay.html``) once the match is recorded.

Written as each match is committed, in a worker thread (rendering a long match takes a
fraction of a second that a table in play must not wait for), so an interrupted run
keeps the replays of the matches it finished; the end of a run sweeps again. A folder whose replay is missing or older than its
``hands.phhs`` (a match played again on resume) gets a fresh one; one that cannot be
written is a note, never a failed command: the records themselves are already safe.
"""

from __future__ import annotations

from pathlib import Path

from arena.history import PhhError
from arena.text import escape_untrusted
from arena.web import write_replay


def write_match_replay(folder: Path) -> str:
    """Write ``folder/replay.html``; the line to print (where it is, or why not)."""
    try:
        return f"replay: {write_replay(folder)}"
    except (PhhError, OSError) as error:
        return escape_untrusted(f"note: no replay page for {folder}: {error}", one_line=True)


def match_replay_note(folder: Path) -> str | None:
    """Write the replay of the match just recorded in ``folder`` (called by the session in
    a worker thread as each match is committed); a note if it cannot be written, None
    otherwise (also when the folder has no ``hands.phhs`` here: a worker elsewhere)."""
    if not (folder / "hands.phhs").is_file():
        return None
    line = write_match_replay(folder)
    return line if line.startswith("note:") else None


def write_tournament_replays(records: Path) -> list[str]:
    """Write the replay of every match under ``records`` that lacks a current one; the
    notes of the ones that could not be written."""
    notes = []
    for hands in sorted(records.glob("*/hands.phhs")):
        page = hands.with_name("replay.html")
        if page.exists() and page.stat().st_mtime >= hands.stat().st_mtime:
            continue
        line = write_match_replay(hands.parent)
        if line.startswith("note:"):
            notes.append(line)
    return notes
