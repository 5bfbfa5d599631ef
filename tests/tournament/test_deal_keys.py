"""A tournament's deal key (issue 19 item 2): drawn once, kept in the database apart from
the tournament file's copy, put back on resume, never in what reports read."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import trio

from arena.tournament import Store, load_tournament, run_tournament
from arena.tournament._formats import build_schedule
from arena.tournament._runner import prepare
from tests.tournament.kit import league


@pytest.fixture(autouse=True)
def _fresh_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about keys drawn afresh: no fixed ``$ARENA_DEAL_KEY``."""
    monkeypatch.delenv("ARENA_DEAL_KEY", raising=False)


def test_resume_deals_with_the_stored_key_and_reports_never_see_it(tmp_path: Path) -> None:
    """Loading the file again draws another key; resume puts the stored one back, so the
    matches still to play deal what they would have. The key is in no config_json."""
    path = league(tmp_path, "keyed", seed=1, hands_per_match=4)
    first = load_tournament(path)
    again = load_tournament(path)
    assert first.deal_key != again.deal_key  # the seed is the file's, the key is not
    store = Store.open(tmp_path / "arena.db")
    try:
        created, tournament_id, _ = prepare(first, store, resume=False)
        resumed, same_id, _ = prepare(again, store, resume=True)
        assert same_id == tournament_id
        assert resumed.deal_key == created.deal_key == first.deal_key
        match = build_schedule(resumed)[0]
        assert resumed.match_settings(match).deal_key == first.deal_key
        row = store.get_tournament("keyed")
        assert row is not None and first.deal_key not in row.config_json
    finally:
        store.close()


def test_an_older_tournament_gets_a_key_at_its_next_resume(tmp_path: Path) -> None:
    """A tournament created before deal keys (no row) keeps the first key a resume gives it."""
    path = league(tmp_path, "old", seed=1, hands_per_match=4)
    store = Store.open(tmp_path / "arena.db")
    try:
        prepare(load_tournament(path), store, resume=False)
    finally:
        store.close()
    with sqlite3.connect(tmp_path / "arena.db") as db:
        db.execute("DELETE FROM deal_keys")
    store = Store.open(tmp_path / "arena.db")
    try:
        one = prepare(load_tournament(path), store, resume=True)[0].deal_key
        two = prepare(load_tournament(path), store, resume=True)[0].deal_key
    finally:
        store.close()
    assert one == two


def test_a_played_tournament_records_its_key_only_where_bots_cannot_look(tmp_path: Path) -> None:
    """After a whole tournament: the key is in the database's deal_keys and each match's
    log.jsonl (the records, masked from every bot), in no replay page or result.json."""
    path = league(tmp_path, "played", seed=1, hands_per_match=4)
    config = load_tournament(path)
    store = Store.open(tmp_path / "arena.db")
    try:
        trio.run(lambda: run_tournament(config, store))
    finally:
        store.close()
    with sqlite3.connect(tmp_path / "arena.db") as db:
        [(key,)] = db.execute("SELECT deal_key FROM deal_keys").fetchall()
    assert key == config.deal_key
    folders = [p for p in (tmp_path / "runs" / "played").iterdir() if p.is_dir()]
    assert folders
    for folder in folders:
        assert f'"deal_key": "{key}"' in (folder / "log.jsonl").read_text()
        for public in ("result.json", "replay.html"):
            if (folder / public).exists():
                assert key not in (folder / public).read_text()
