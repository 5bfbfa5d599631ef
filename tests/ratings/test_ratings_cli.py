"""Item 14 and 16: bounded rating settings, overflow-proof Elo, `arena ratings` errors and anchors,
and leaderboard tables that keep names whole at 80 columns."""

from __future__ import annotations

import io
import json
import math
import re
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

from arena.cli import cli
from arena.cli._app import _register
from arena.cli._ratings import los_table, pairs_table, standings_table
from arena.ratings import EloSystem, PairResult, fit_ratings
from arena.tournament import Store, TournamentConfigError, compute_standings, parse_tournament

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_ratings_standings import mixed_database

_register()
FIGURE = re.compile(r"[+-]?\d+ (± \d+|\(too few hands\)|\(anchor\))")  # issue 21 item 3: no "± ∞"


def ratings(*args: str):
    return CliRunner().invoke(cli, ["ratings", *args])


def one_clear_line(result, *needles: str) -> None:
    assert result.exit_code != 0
    assert ("Traceback" not in result.output and result.exception is None) or isinstance(
        result.exception, SystemExit
    ), result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) <= 3, result.output  # click's usage lines for a bad option, else one
    for needle in needles:
        assert needle in result.output, result.output


class TestBounds:
    def test_elo_expected_score_does_not_overflow_on_absurd_ratings(self):
        """Ratings of +-498,500 (what k = 1e6 stored) give scores of 0 and 1, no OverflowError."""
        assert EloSystem.expected(-498_500.0, 498_500.0) == pytest.approx(0.0, abs=1e-300)
        assert EloSystem.expected(498_500.0, -498_500.0) == 1.0

    def test_a_match_on_a_database_holding_absurd_ratings_stays_finite(self):
        """The next match after absurd stored ratings updates them by at most K."""
        before = {"a": 498_500.0, "b": -498_500.0, "c": math.inf}
        after = EloSystem(k=32).update(before, [PairResult("a", "b", 0.0), PairResult("c", "a", 1)])
        assert all(math.isfinite(value) for value in after.values())
        assert abs(after["a"] - before["a"]) <= 64

    def test_absurd_k_and_start_are_refused(self):
        """K above 400 or a start rating past +-10,000 is refused with the allowed range."""
        with pytest.raises(ValueError, match="at most 400"):
            EloSystem(k=1e6)
        with pytest.raises(ValueError, match="10000"):
            EloSystem(start=1e9)

    def test_fit_refuses_a_non_finite_anchor_rating(self):
        """fit_ratings(anchor_rating=nan) is refused instead of giving 'nan +- inf'."""
        with pytest.raises(ValueError, match="anchor_rating"):
            fit_ratings([PairResult("a", "b", 1.0)], anchor_rating=math.nan)

    @pytest.mark.parametrize(
        ("line", "key"),
        [
            ("k = 1e6", "ratings.k"),
            ("start = 1e9", "ratings.start"),
            ("anchor_rating = 1e300", "ratings.anchor_rating"),
        ],
    )
    def test_tournament_file_rating_settings_are_bounded(self, tmp_path: Path, line: str, key: str):
        """`[ratings] k = 1e6` (and absurd ratings) are refused when the file is read, naming the key."""
        text = textwrap.dedent(
            f"""
            [tournament]
            name = "t"
            [ratings]
            {line}
            [[bots]]
            name = "a"
            builtin = "random"
            [[bots]]
            name = "b"
            builtin = "random"
            """
        )
        with pytest.raises(TournamentConfigError, match=re.escape(key)):
            parse_tournament(text, "t.toml", base_dir=tmp_path)


class TestRatingsCommand:
    def test_a_non_finite_anchor_rating_is_refused(self, tmp_path: Path):
        """--anchor-rating nan / inf / 1e300 is a clear error naming the option."""
        db = mixed_database(tmp_path / "a.db", 0)
        for bad in ("nan", "inf", "1e300"):
            one_clear_line(ratings("--db", str(db), "--anchor-rating", bad), "--anchor-rating")

    def test_an_unknown_anchor_is_refused_naming_the_rated_bots(self, tmp_path: Path):
        """--anchor nobody is refused with the list of rated bots, not silently ignored."""
        db = mixed_database(tmp_path / "a.db", 0)
        one_clear_line(
            ratings("--db", str(db), "--anchor", "nobody"), "nobody", "student-0, student-1"
        )

    def test_the_tournament_files_anchor_is_used_and_named(self, tmp_path: Path):
        """Without --anchor, the latest tournament's anchor is pinned (as at the tournament's end) and named."""
        db = mixed_database(tmp_path / "a.db", 0)  # stored [ratings] anchor = student-0 at 1000
        result = ratings("--db", str(db))
        assert 0 == result.exit_code, result.output
        assert "anchor: student-0 = 1000 (from tournament 'mixed'" in result.output
        with Store.open(db) as store:
            end_of_tournament = compute_standings(
                store, "fixed_limit", anchor="student-0", anchor_rating=1000
            )
        for row in end_of_tournament.rows:
            pinned = row.bot == "student-0"  # its "± 0" shows as the anchor (issue 21 item 3)
            shown = "1000 (anchor)" if pinned else f"{row.fit.elo:.0f} ± {row.fit.ci95:.0f}"
            assert shown in result.output, row
        explicit = ratings("--db", str(db), "--anchor", "student-3", "--anchor-rating", "1200")
        assert "anchor: student-3 = 1200 (--anchor)" in explicit.output
        assert "1200 (anchor)" in explicit.output and "1200 ± 0" not in explicit.output

    def test_a_missing_database_is_a_clear_error_and_is_not_created(self, tmp_path: Path):
        """`arena ratings --db missing.db` says so and leaves no file behind."""
        path = tmp_path / "sub" / "missing.db"
        one_clear_line(ratings("--db", str(path)), "no such database")
        assert not path.exists() and not path.parent.exists()

    def test_random_bytes_are_a_clear_error(self, tmp_path: Path):
        """A file of random bytes: one line naming the file, no traceback."""
        path = tmp_path / "junk.db"
        path.write_bytes(bytes(range(256)) * 64)
        one_clear_line(ratings("--db", str(path)), "junk.db")

    @pytest.mark.parametrize("damage", ["truncate", "pages", "records"])
    def test_a_corrupt_database_is_a_clear_error(self, tmp_path: Path, damage: str):
        """Truncated file, overwritten pages or garbage records: one line, no traceback."""
        db = mixed_database(tmp_path / "c.db", 1)
        with Store.open(db) as store:  # fold the WAL into the main file
            store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        data = bytearray(db.read_bytes())
        if damage == "truncate":
            db.write_bytes(bytes(data[: len(data) // 2 + 100]))
        elif damage == "pages":
            page = 4096
            for start in range(2 * page, len(data), 2 * page):
                data[start + 8 : start + 400] = b"\xff" * 392
            db.write_bytes(bytes(data))
        else:
            with Store.open(db) as store:
                store._db.execute("UPDATE seat_results SET unit_chips_json = 'x[1,' WHERE seat = 0")
        one_clear_line(ratings("--db", str(db)), "c.db")


def students_standings(tmp_path: Path, count: int):
    names = [f"student-alice-{k}" for k in range(1, count + 1)]
    schedule = [
        {"key": f"m{i}-{j}", "seats": [a, b], "hands": 4}
        for i, a in enumerate(names)
        for j, b in enumerate(names)
        if i < j
    ]
    with Store.open(tmp_path / "s.db") as store:
        tid = store.create_tournament("s", json.dumps({}), schedule)
        for n, row in enumerate(schedule):
            units = [(n * 37 % 7) - 3, (n * 53 % 5) - 2]
            seats = [
                {
                    "bot": row["seats"][0],
                    "seat": 0,
                    "chips": sum(units),
                    "hands": 4,
                    "unit_chips": units,
                },
                {
                    "bot": row["seats"][1],
                    "seat": 1,
                    "chips": -sum(units),
                    "hands": 4,
                    "unit_chips": [-x for x in units],
                },
            ]
            store.record_match(
                tid, row["key"], game_type="fixed_limit", big_blind=2, duplicate_block=2,
                result_summary={"reason": "completed"}, seats=seats, records_dir="-",
            )  # fmt: skip
        return names, compute_standings(store, "fixed_limit")


def render(table) -> str:
    console = Console(width=80, record=True, file=io.StringIO())
    console.print(table)
    return console.export_text()


class TestNamesKeptWhole:
    def test_leaderboard_at_80_columns_keeps_names_distinct(self, tmp_path: Path):
        """Item 16: "student-alice-1" and "student-alice-2" both appear whole; every "±" figure is intact."""
        names, standings = students_standings(tmp_path, 6)
        text = render(standings_table(standings, "league", live_elo=True))
        for name in names:
            assert name in text, text
        assert len(FIGURE.findall(text)) == 2 * len(names), text
        assert "…" not in text

    def test_a_very_long_name_folds_instead_of_being_cut(self, tmp_path: Path):
        """A name wider than its column is folded onto more lines, every character kept."""
        _, standings = students_standings(tmp_path, 3)
        row = standings.rows[0]
        long = "a-very-long-bot-name-from-a-student-who-likes-long-names"
        standings = type(standings)(
            standings.game_type,
            (type(row)(long, row.elo, row.fit, row.win_rate, row.matches, row.hands, row.faults),),
            {}, 1, {},
        )  # fmt: skip
        text = render(standings_table(standings, "league"))
        body = text.split("─")[-1].splitlines()
        pieces = [
            line.split()[1] if line.split()[:1] == ["1"] else line.split()[0]
            for line in body
            if line.strip()
        ]
        assert long == "".join(pieces), text  # folded, not cut
        assert "…" not in text

    def test_pairs_matrix_uses_rank_keys_and_keeps_figures_on_one_line(self, tmp_path: Path):
        """--pairs at 80 columns: columns keyed 1..n, full names as row labels, no wrapped "±"."""
        names, standings = students_standings(tmp_path, 4)
        text = render(pairs_table(standings, width=80))
        for name in names:
            assert name in text, text
        assert len(FIGURE.findall(text)) == 4 * 3, text
        assert "(columns: rank)" in " ".join(text.split())

    def test_pairs_too_many_for_a_matrix_become_a_list_of_pairs(self, tmp_path: Path):
        """Eight bots do not fit as a matrix at 80 columns: one line per pair, names whole."""
        names, standings = students_standings(tmp_path, 8)
        text = render(pairs_table(standings, width=80))
        for name in names:
            assert name in text, text
        assert len(FIGURE.findall(text)) == 8 * 7 // 2, text
        los = render(los_table(standings, width=80))
        for name in names:
            assert name in los, los
