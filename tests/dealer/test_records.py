"""A match's per-seat figures are computed once and read by result.json and its callers."""

from __future__ import annotations

import json

import pytest

from arena.dealer import MatchRecorder, MatchSettings, policy_driver, run_match, summarize
from arena.engine import GameConfig


@pytest.mark.trio
async def test_result_json_is_the_recorders_seat_summaries(tmp_path) -> None:
    """result.json shows the SeatSummary figures the recorder keeps; units add up to the chips."""
    settings = MatchSettings(config=GameConfig(), hands=12, seed=4, duplicate=True)
    recorder = MatchRecorder(tmp_path, settings)
    drivers = [policy_driver("a", "rule-based"), policy_driver("b", "calling-station")]
    result = await run_match(drivers, settings, on_hand=recorder.on_hand)
    summary = recorder.match_finished(result, duplicate_block=2)
    assert summary == json.loads((tmp_path / "result.json").read_text())
    assert summary == summarize(result, 2, duplicate_block=2)
    assert [s.name for s in recorder.seats] == ["a", "b"]
    for seat, row in zip(recorder.seats, summary["seats"], strict=True):
        assert 6 == len(seat.units)
        assert sum(seat.units) == seat.chips_won == row["chips_won"]
        assert round(seat.mbb_per_hand, 1) == row["mbb_per_hand"]


@pytest.mark.trio
async def test_referee_records_are_private_to_the_arena_user(tmp_path) -> None:
    """Issue 9 item 2: the files holding hidden cards are 0600 in a 0700 folder, so another
    uid (a bot's at sandbox L2) cannot read them."""
    settings = MatchSettings(config=GameConfig(), hands=2, seed=4)
    folder = tmp_path / "runs" / "m1"
    recorder = MatchRecorder(folder, settings)
    drivers = [policy_driver("a", "rule-based"), policy_driver("b", "calling-station")]
    recorder.match_started(["a", "b"], 4)
    result = await run_match(drivers, settings, on_hand=recorder.on_hand)
    recorder.match_finished(result)
    assert folder.stat().st_mode & 0o777 == 0o700
    for name in ("log.jsonl", "events.jsonl", "hands.phhs", "result.json"):
        assert (folder / name).stat().st_mode & 0o777 == 0o600, name


@pytest.mark.trio
async def test_hello_name_and_version_are_logged_next_to_the_given_name(tmp_path) -> None:
    """Issue 9 item 6: the match log says what each bot called itself in its Hello."""
    settings = MatchSettings(config=GameConfig(), hands=1, seed=4)
    recorder = MatchRecorder(tmp_path, settings)
    drivers = [policy_driver("a", "rule-based"), policy_driver("b", "calling-station")]
    recorder.match_started(["a", "b"], 4, sandbox=["L1", "L1"])
    result = await run_match(drivers, settings, on_hand=recorder.on_hand)
    summary = recorder.match_finished(result)
    lines = [json.loads(line) for line in (tmp_path / "log.jsonl").read_text().splitlines()]
    hellos = [line for line in lines if line["event"] == "bot_hello"]
    assert [(h["seat"], h["given_name"]) for h in hellos] == [(0, "a"), (1, "b")]
    assert all(h["hello_name"] and "hello_version" in h for h in hellos)
    assert [s["sandbox"] for s in summary["seats"]] == ["L1", "L1"]
    assert [s["hello"]["name"] for s in summary["seats"]] == [h["hello_name"] for h in hellos]
    assert [s["clock"] for s in summary["seats"]] == ["wall", "wall"]  # in process: wall clock
    assert summary["duplicate_isolated"] is False
