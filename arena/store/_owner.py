"""Whose records folder this is: a stamp written once, checked by every run and resume.

The lock (:mod:`arena.store._lock`) keeps two *live* runs apart; it says nothing
once a tournament has finished. A second database whose tournament has the same name
and output would then play into the finished tournament's folder and replace its
records. So when a tournament is created, ``<output>/<name>/.owner`` is written once,
naming the database (its absolute path, for the message) and the tournament's stored
id and creation time (what is compared: they move with the database, so a folder
moved together with its database is still its own). A run or resume from any other
database is refused in one line naming both.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from arena.store._db import is_url
from arena.store._schema import ClaimError, TournamentRow

OWNER_FILE = ".owner"
_NOT_RECORDS = {".lock", OWNER_FILE}


def _identity(row: TournamentRow) -> dict[str, Any]:
    return {"tournament": row.name, "id": row.id, "created_at": row.created_at}


def _read(records: Path) -> dict[str, Any] | None:
    """The stamp, ``None`` if there is none; an unreadable one is a ClaimError."""
    path = records / OWNER_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as error:
        raise ClaimError(
            f"{path}: unreadable owner stamp ({error}); move the folder away"
        ) from None
    if not isinstance(data, dict):
        raise ClaimError(f"{path}: unreadable owner stamp; move the folder away")
    return data


def _has_records(records: Path) -> bool:
    try:
        return any(entry.name not in _NOT_RECORDS for entry in records.iterdir())
    except FileNotFoundError:
        return False


def _refusal(records: Path, owner: dict[str, Any] | None, database: str) -> ClaimError:
    if owner is None:
        whose = "records of a tournament that no database here has stamped"
    else:
        whose = f"the records of tournament {owner.get('tournament')!r} of {owner.get('database')}"
    return ClaimError(
        f"records folder {records} holds {whose}; {database} may not write there: "
        "give this tournament another name or another tournament.output"
    )


def check_free(records: Path, database: str) -> None:
    """Before a new tournament is stored: refuse a folder that already holds any records."""
    owner = _read(records)
    if owner is not None or _has_records(records):
        raise _refusal(records, owner, database)


def claim(records: Path, row: TournamentRow, database: str) -> None:
    """Stamp the folder as ``row``'s, or check that it is; refuse another database's.

    A folder with records and no stamp (written before stamps existed) is adopted by the
    database that resumes its tournament: that database's records are the ones there.
    """
    owner = _read(records)
    if owner is not None:
        if {key: owner.get(key) for key in ("tournament", "id", "created_at")} != _identity(row):
            raise _refusal(records, owner, database)
        return
    where = database if database == ":memory:" or is_url(database) else os.path.abspath(database)
    stamp = {**_identity(row), "database": where}
    path = records / OWNER_FILE
    try:
        records.mkdir(parents=True, exist_ok=True)
        with open(path, "x", encoding="utf-8") as file:  # written once, never replaced
            json.dump(stamp, file)
    except FileExistsError:
        claim(records, row, database)
    except OSError as error:
        raise ClaimError(f"{path}: cannot write the owner stamp: {error.strerror}") from None


def _portable(data: dict[str, Any]) -> dict[str, Any]:
    """The stored settings with every path relative to the database's folder."""
    section = dict(data.get("tournament", {}))
    database = section.get("database")
    if not isinstance(database, str) or database == ":memory:" or is_url(database):
        return data
    base = os.path.dirname(database)

    def rel(value: object) -> object:
        return os.path.relpath(value, base) if isinstance(value, str) and value else value

    section["output"] = rel(section.get("output"))
    section["database"] = rel(database)
    bots = [
        {**bot, "workdir": rel(bot["workdir"])}
        if isinstance(bot, dict) and "workdir" in bot
        else bot
        for bot in data.get("bots", [])
    ]
    return {**data, "tournament": section, "bots": bots}


def same_settings(stored_json: str, config_json: str) -> bool:
    """Whether a resumed file's settings are the stored ones, wherever the folder now is.

    Paths are stored absolute; a tournament folder moved with its database (and its
    ``output``) has other absolute paths but the same ones relative to the database.
    """
    if stored_json == config_json:
        return True
    try:
        stored, current = json.loads(stored_json), json.loads(config_json)
    except ValueError:
        return False
    if not isinstance(stored, dict) or not isinstance(current, dict):
        return False
    return _portable(stored) == _portable(current)
