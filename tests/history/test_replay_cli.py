"""``arena replay FILE...``: summaries, ``--json``, and clear errors with exit status 1."""

from __future__ import annotations

import json
import random
from pathlib import Path

from click.testing import CliRunner

from arena.cli._replay import command
from arena.engine import Deck, GameConfig, Hand, Structure
from arena.history import dumps_phhs, hand_to_phh

DATA = Path(__file__).parent / "data"
EXAMPLE = DATA / "example.phh"


def run(*args: str):
    return CliRunner().invoke(command, list(args))


def test_replay_prints_a_summary_per_hand() -> None:
    """A good file replays with exit 0 and one line per hand naming the winner."""
    result = run(str(EXAMPLE))
    assert result.exit_code == 0, result.output
    assert "hand 1 [N5D, 3 players]: p2 bob wins 61 at showdown" in result.output
    assert "replayed 1 hand from 1 file: all legal" in result.output


def test_replay_json_has_finishing_stacks_in_file_order() -> None:
    """``--json`` prints one object per hand with the replay's finishing stacks."""
    result = run("--json", str(EXAMPLE))
    assert result.exit_code == 0, result.output
    [line] = result.output.splitlines()
    record = json.loads(line)
    assert record["finishing_stacks"] == [99, 131, 70]
    assert record["finishing_stacks_checked"] is True
    assert record["players"] == ["alice", "bob", "carol"]


def test_replay_phhs_file_prints_every_hand(tmp_path: Path) -> None:
    """A ``.phhs`` file of several hands gives one JSON object per hand."""
    rng = random.Random(2)
    hands = []
    for structure in Structure:
        hand = Hand(GameConfig(structure=structure), [60, 60, 60], 1, Deck.shuffled(rng))
        while not hand.is_over:
            hand.apply(hand.default_action())
        hands.append(hand)
    path = tmp_path / "session.phhs"
    path.write_text(dumps_phhs(hand_to_phh(h, hand_number=k) for k, h in enumerate(hands, 1)))
    result = run("--json", str(path))
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.splitlines()]
    assert [line["hand"] for line in lines] == ["1", "2", "3"]
    assert [line["variant"] for line in lines] == ["F5D", "P5D", "N5D"]


def test_illegal_action_stops_with_file_hand_and_action(tmp_path: Path) -> None:
    """An illegal action exits 1 with a message naming file, hand and action, no traceback."""
    path = tmp_path / "bad.phh"
    path.write_text(EXAMPLE.read_text().replace('"p3 cbr 10"', '"p3 cbr 1"'))
    result = run(str(path))
    assert result.exit_code == 1
    assert f"{path}: hand 1: action 4 'p3 cbr 1': not legal" in result.output
    assert "Traceback" not in result.output


def test_finishing_stacks_mismatch_exits_nonzero(tmp_path: Path) -> None:
    """A file whose finishing_stacks differ from the replay fails, also with ``--json``."""
    path = tmp_path / "wrong.phh"
    path.write_text(EXAMPLE.read_text().replace("[99, 131, 70]", "[99, 130, 71]"))
    result = run("--json", str(path))
    assert result.exit_code == 1
    assert "finishing_stacks [99, 130, 71] differ from the replay's [99, 131, 70]" in result.output


def test_corrupt_files_exit_nonzero(tmp_path: Path) -> None:
    """Bad TOML, an unknown variant and a missing file each exit 1 with a clear message."""
    bad_toml = tmp_path / "bad.phh"
    bad_toml.write_text("variant = \n")
    unknown = tmp_path / "holdem.phh"
    unknown.write_text(EXAMPLE.read_text().replace('"N5D"', '"NT"'))
    for path, message in (
        (bad_toml, "not valid TOML"),
        (unknown, "unknown variant 'NT'"),
        (tmp_path / "missing.phh", "cannot read the file"),
    ):
        result = run(str(path))
        assert result.exit_code == 1, path
        assert message in result.output
        assert "Traceback" not in result.output


def test_stops_at_the_first_bad_file() -> None:
    """Files are replayed in order; nothing after the first failure runs."""
    result = run(str(EXAMPLE), "nope.phh", str(EXAMPLE))
    assert result.exit_code == 1
    assert result.output.count("p2 bob wins") == 1


def _clean_failure(result, message: str) -> None:
    """Exit 1 through click (one line, no exception escaping), naming the problem."""
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert message in result.output, result.output
    assert len(result.output.strip().splitlines()) == 1, result.output


def test_replay_superscript_digit_amount_is_one_clear_error(tmp_path: Path) -> None:
    """``p3 cbr ²`` passes str.isdigit but is no number: one line naming the action."""
    path = tmp_path / "superscript.phh"
    path.write_text(EXAMPLE.read_text().replace('"p3 cbr 10"', '"p3 cbr ²"'), encoding="utf-8")
    result = run(str(path))
    _clean_failure(result, f"{path}: hand 1: action 4 'p3 cbr ²': '²' is not a whole number")


def test_replay_reads_only_ascii_digits(tmp_path: Path) -> None:
    """Arabic-Indic digits are not chips or players: ``cbr ١٠`` is not ``cbr 10``, ``p٣`` not ``p3``."""
    for old, new, message in (
        ('"p3 cbr 10"', '"p3 cbr ١٠"', "'١٠' is not a whole number"),
        ('"p3 cbr 10"', '"p٣ cbr 10"', "'p٣' is not a player of this hand"),
    ):
        path = tmp_path / "arabic.phh"
        path.write_text(EXAMPLE.read_text().replace(old, new), encoding="utf-8")
        _clean_failure(run(str(path)), message)


def test_replay_variant_of_the_wrong_type_is_one_clear_error(tmp_path: Path) -> None:
    """``variant = ["F5D"]`` is a clear error naming the field, not a traceback."""
    path = tmp_path / "list.phh"
    path.write_text(EXAMPLE.read_text().replace('variant = "N5D"', 'variant = ["N5D"]'))
    _clean_failure(run(str(path)), "'variant' must be a string")


def test_replay_escapes_control_characters_from_the_file(tmp_path: Path) -> None:
    """Hand and player names come from the file: an ANSI escape or newline is printed escaped."""
    path = tmp_path / "names.phh"
    text = EXAMPLE.read_text().replace("hand = 1", 'hand = "\\u001b[2J\\nx"')
    path.write_text(text.replace('"bob"', '"b\\u001b[31mob"'))
    result = run(str(path))
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.output
    assert "hand \\x1b[2J\\nx [N5D" in result.output and "p2 b\\x1b[31mob wins" in result.output
    bad = tmp_path / "bad_name.phh"
    bad.write_text(text.replace('"p3 cbr 10"', '"p3 cbr 1"'))
    result = run(str(bad))
    _clean_failure(result, "hand \\x1b[2J\\nx: action 4 'p3 cbr 1': not legal")
