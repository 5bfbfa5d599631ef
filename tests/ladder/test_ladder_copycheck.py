"""The copy check: behaviour fingerprints on fixed hands, source similarity that sees
through renaming, and flags only between different teams."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest
import trio

from arena.ladder import _copycheck
from arena.ladder._copycheck import (
    CopyEntry,
    CopyFlag,
    agreement,
    find_copies,
    fingerprint,
    source_similarity,
)
from arena.tournament import DriverContext, make_bot, open_builtin_bot

KEY = "5e" * 32


def builtin(policy: str, name: str = "under-test"):
    """Opens a ``builtin:`` bot the way check-bot's scenarios do."""
    return lambda: open_builtin_bot(make_bot(name, "builtin", policy), DriverContext(seed=3))


def played(policy: str, name: str = "under-test", seed: int = 17) -> tuple[str, ...]:
    return trio.run(lambda: fingerprint(builtin(policy, name), hands=40, seed=seed, deal_key=KEY))


def test_the_same_bot_under_another_name_plays_the_same() -> None:
    one = played("calling-station", "team-a")
    two = played("calling-station", "team-b")
    assert one == two
    assert agreement(one, two) == 1.0
    assert one[0].startswith("h1:d1:")
    assert any(token.startswith("h1:draw:") for token in one)


def test_different_bots_agree_less() -> None:
    station, rules = played("calling-station"), played("rule-based")
    assert agreement(station, rules) < 0.9
    assert agreement(played("random"), rules) < 0.9


def test_the_decks_follow_the_seed_and_key() -> None:
    assert played("rule-based", seed=17) == played("rule-based", seed=17)
    assert played("rule-based", seed=17) != played("rule-based", seed=18)


def test_agreement_stops_each_hand_at_the_first_difference() -> None:
    a = ("h1:d1:call", "h1:draw:-", "h1:d2:check", "h2:d1:fold")
    b = ("h1:d1:call", "h1:draw:2c,9d", "h1:d2:raise:8", "h2:d1:fold")
    # hand 1: the same, then a difference (2 compared, 1 same); the rest of it is not
    # compared (the situations differ); hand 2: the same
    assert agreement(a, b) == pytest.approx(2 / 3)
    assert agreement(a, a) == 1.0


def test_agreement_compares_only_what_both_reached() -> None:
    a = ("h1:d1:call", "h1:d2:check", "h3:d1:fold")
    b = ("h1:d1:call", "h2:d1:call")  # one asked less in hand 1; hands 2 and 3 apart
    assert agreement(a, b) == 1.0
    assert agreement((), b) == 0.0
    assert agreement(("h1:d1:fold",), ("h2:d1:fold",)) == 0.0


BOT = '''
import random

class Bot:
    """Raises strong hands, calls medium ones."""

    def __init__(self, threshold):
        self.threshold = threshold
        self.seen = 0

    def strength(self, cards):
        ranks = [card[0] for card in cards]
        pairs = sum(1 for rank in set(ranks) if ranks.count(rank) >= 2)
        high = max("23456789TJQKA".index(rank) for rank in ranks)
        return pairs * 20 + high

    def decide(self, request):
        self.seen += 1
        score = self.strength(request.hole_cards)
        if request.phase == 2:
            keep = [c for c in request.hole_cards if request.hole_cards.count(c) > 1]
            return ("discard", [c for c in request.hole_cards if c not in keep][:3])
        if score > self.threshold and request.legal.can_raise:
            return ("raise", request.legal.min_raise_to)
        if score > self.threshold // 2:
            return ("call", 0)
        return ("check", 0) if request.legal.can_check else ("fold", 0)
'''

OTHER = """
def act(state):
    # always the same plan: look at the pot odds
    pot, owed = state["pot"], state["owed"]
    if owed == 0:
        return "check"
    odds = pot / max(owed, 1)
    while odds > 10:
        odds -= 1
    for attempt in range(3):
        try:
            return "call" if odds > 4 else "fold"
        except ValueError:
            continue
    return "fold"

def main():
    import sys
    for line in sys.stdin:
        print(act(eval(line)))
"""


def rename(text: str) -> str:
    """A copier's disguise: new names, new comments, a changed layout."""
    names = {"Bot": "Player", "threshold": "limit", "seen": "count", "strength": "power"}
    names |= {"cards": "hand", "ranks": "values", "rank": "v", "pairs": "npairs"}
    names |= {"high": "top", "score": "s", "keep": "kept", "request": "req", "c": "x"}
    for old, new in names.items():
        text = re.sub(rf"\b{old}\b", new, text)
    text = text.replace('"""Raises strong hands, calls medium ones."""', "# my own bot!")
    return "# (c) team b\n" + text.replace("\n\n", "\n\n\n    # step\n")


def folder(root: Path, name: str, files: dict[str, str]) -> Path:
    path = root / name
    for relative, text in files.items():
        (path / relative).parent.mkdir(parents=True, exist_ok=True)
        (path / relative).write_text(text)
    return path


def test_a_renamed_copy_is_similar_and_a_different_bot_is_not(tmp_path: Path) -> None:
    original = folder(tmp_path, "a", {"bot.py": BOT})
    copy = folder(tmp_path, "b", {"src/player.py": rename(BOT)})
    other = folder(tmp_path, "c", {"main.py": OTHER})
    assert source_similarity(original, copy) >= 0.9
    assert source_similarity(original, other) < 0.2
    assert source_similarity(original, original) == 1.0


def test_stubs_dependencies_links_and_template_files_are_not_compared(tmp_path: Path) -> None:
    shared = {"node_modules/lib/index.js": BOT.replace("#", "//"), "arena_pb2.py": BOT}
    template = "def template_helper(x):\n    return [x, x + 1, x * 2, str(x)]\n" * 3
    a = folder(tmp_path, "a", {"bot.py": BOT, "helper.py": template, **shared})
    b = folder(tmp_path, "b", {"main.py": OTHER, "helper.py": template, **shared})
    (b / "linked.py").symlink_to(a / "bot.py")
    sha = hashlib.sha256(template.encode()).hexdigest()
    assert source_similarity(a, b) > 0.0  # the template file is shared
    assert source_similarity(a, b, ignore={sha}) == 0.0


def test_a_huge_folder_is_read_only_to_its_budget(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(_copycheck, "SOURCE_BUDGET", len(BOT))
    a = folder(tmp_path, "a", {"a.py": BOT, "b.py": OTHER})  # b.py is past the budget
    b = folder(tmp_path, "b", {"a.py": BOT})
    assert source_similarity(a, b) == 1.0


def test_empty_folders_are_no_evidence(tmp_path: Path) -> None:
    a = folder(tmp_path, "a", {"README.md": "notes"})
    assert source_similarity(a, a) == 0.0


def test_copies_are_flagged_across_teams_only(tmp_path: Path) -> None:
    same = ("h1:d1:call", "h1:draw:-", "h2:d1:fold")
    code = folder(tmp_path, "code", {"bot.py": BOT})
    copied = folder(tmp_path, "copied", {"bot.py": rename(BOT)})
    entries = [
        CopyEntry("ants", 1, same, code),
        CopyEntry("ants", 2, same, code),  # the same team's versions: never flagged
        CopyEntry("bees", 7, same, None),
        CopyEntry("cats", 9, ("h1:d1:fold", "h2:d1:call"), copied),
    ]
    flags = find_copies(entries)
    assert all(flag.team_a != flag.team_b for flag in flags)
    assert CopyFlag("ants", 1, "bees", 7, "behaviour", 1.0) in flags
    assert CopyFlag("ants", 2, "bees", 7, "behaviour", 1.0) in flags
    assert {(f.version_a, f.version_b) for f in flags if f.kind == "source"} == {(1, 9), (2, 9)}
    assert not [f for f in flags if f.kind == "behaviour" and "cats" in (f.team_a, f.team_b)]
    assert find_copies(entries, source_threshold=1.01, behaviour_threshold=1.01) == []
