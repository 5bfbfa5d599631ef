"""A worker deletes a match's half-written folder only inside the records folder (issue 12
item 2, audit): the folder comes from a schedule key stored in the database, which someone
who can write a shared PostgreSQL database could set to ``../..``."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
import trio
from test_executor import write

from arena.executors.worker import play_one, safe_folder
from arena.tournament import Store, TournamentError, load_tournament
from arena.tournament._executor import match_spec
from arena.tournament._runner import prepare


def _spec(tmp_path: Path):
    config = load_tournament(write(tmp_path, "folders"))
    with Store.open(config.database) as store:
        config, tournament_id, _ = prepare(config, store, resume=False)
        match = store.schedule(tournament_id)[0]
    return match_spec(config, match)


@pytest.mark.parametrize("key", ["..", "../..", "a/../../b", ".hidden", "", "x\n"])
def test_a_key_that_is_not_one_safe_folder_name_is_refused(tmp_path: Path, key: str) -> None:
    """Issue 12 item 2 (audit): the key is one safe path component, or the spec is refused
    in one line and nothing is deleted."""
    spec = _spec(tmp_path)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep").write_text("x")
    folder = str(Path(spec.folder).parent / key) if key else str(victim)
    bad = dataclasses.replace(spec, key=key, folder=folder)
    with pytest.raises(TournamentError) as error:
        safe_folder(bad)
    assert "\n" not in str(error.value)
    assert (victim / "keep").exists()


def test_a_folder_that_is_not_records_slash_key_is_refused_before_deleting(tmp_path: Path) -> None:
    """Issue 12 item 2 (audit): a safe key with a folder elsewhere (the folder's last part is
    not the key) is refused by play_one, and the folder is left alone."""
    spec = _spec(tmp_path)
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep").write_text("x")
    bad = dataclasses.replace(spec, folder=str(victim))

    class NoBots:
        async def tables(self, spec):
            return [[]], {}

    with pytest.raises(TournamentError):
        trio.run(play_one, bad, NoBots())
    assert (victim / "keep").exists()
    assert safe_folder(spec) == Path(spec.folder)  # the real spec is fine
