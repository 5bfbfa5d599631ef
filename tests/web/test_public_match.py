"""A recorded 300-hand match read back by public_match (issue 10 item 4, R18, R19).

The match is played by ``arena match`` in a subprocess; its ``events.jsonl`` is the
referee's record (every hidden card) and its ``hands.phhs`` what the replayer reads.
Hand by hand, the spectator's record holds only the cards the referee's record shows
as shown in that same hand, and the director's record holds every card dealt.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest
from record_cards import card_strings

from arena.web import public_match

HANDS = 300


@pytest.fixture(scope="module")
def match_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("match")
    command = [
        sys.executable, "-m", "arena", "match", "builtin:random", "builtin:rule-based",
        "builtin:calling-station", "--hands", str(HANDS), "--seed", "11", "--out", str(out),
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    (folder,) = [p for p in out.iterdir() if (p / "hands.phhs").exists()]
    return folder


def _referee(folder: Path) -> tuple[dict[int, set[str]], dict[int, set[str]]]:
    """Per hand number: the cards shown, and every card dealt, in events.jsonl."""
    shown: dict[int, set[str]] = defaultdict(set)
    dealt: dict[int, set[str]] = defaultdict(set)
    for line in (folder / "events.jsonl").read_text(encoding="utf-8").splitlines():
        event = json.loads(line)
        number = event["hand"]
        if event["event"] == "HandShown":
            shown[number].update(event["cards"])
        elif event["event"] == "HoleCardsDealt":
            dealt[number].update(event["cards"])
        elif event["event"] == "CardsDrawn":
            dealt[number].update(event["drawn"])
    return shown, dealt


def test_r18_r19_recorded_match_public_view_holds_only_shown_cards(match_folder: Path) -> None:
    """R18, R19: hand by hand, the replayer's spectator records hold no card the referee's
    record does not show as shown in that hand; the director's hold every card dealt."""
    shown, dealt = _referee(match_folder)
    public = public_match(match_folder / "hands.phhs")
    director = public_match(match_folder / "hands.phhs", reveal=True)
    assert [h["number"] for h in public] == list(range(1, HANDS + 1))
    hidden = 0
    for spectator, revealed in zip(public, director, strict=True):
        number = spectator["number"]
        assert card_strings(json.loads(json.dumps(spectator))) <= shown[number], number
        assert dealt[number] <= card_strings(revealed), number
        hidden += len(dealt[number] - shown[number])
    assert hidden > HANDS, "most hands hide cards: the comparison must be able to fail"


def test_recorded_match_names_and_seats(match_folder: Path) -> None:
    """Names and table seats come from the match's records (the names the match gave)."""
    result = json.loads((match_folder / "result.json").read_text(encoding="utf-8"))
    public = public_match(match_folder / "hands.phhs")
    names = {seat["name"] for hand in public for seat in hand["seats"]}
    assert names == {"random", "rule-based", "calling-station"}, (names, result.keys())
    assert {seat["seat"] for hand in public for seat in hand["seats"]} == {0, 1, 2}
