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
