"""`arena ratings --system NAME`: the rating-system plugins rate the stored matches."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

import arena.cli._rating_systems as rating_systems_cli
from arena.cli import cli
from arena.cli._app import _register
from arena.cli._rating_systems import ranked, stored_pair_results
from arena.plugins import get_plugin_manager, hookimpl
from arena.ratings import IncrementalElo, PairResult, Rating
from arena.store._schema import SeatResult
from arena.tournament import Store

_register()

GAME = "fixed_limit"


def _record(store: Store, tournament_id: int, key: str, chips: dict[str, int], **kw) -> None:
    store.record_match(
        tournament_id,
        key,
        game_type=GAME,
        big_blind=2,
        duplicate_block=1,
        result_summary={
            "match_id": key,
            "hands_played": 10,
            "reason": kw.get("reason", "completed"),
        },
        seats=[
            SeatResult(
                bot=bot,
                seat=seat,
                chips=value,
                hands=10,
                forfeited=bot in kw.get("forfeited", ()),
            )
            for seat, (bot, value) in enumerate(chips.items())
        ],
        records_dir=f"records/{key}",
    )


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Path]:
    """alice beats bob twice and carol once; carol beats bob."""
    path = tmp_path / "arena.db"
    matches = {
        "m1": {"alice": 8, "bob": -8},
        "m2": {"alice": 4, "carol": -4},
        "m3": {"carol": 6, "bob": -6},
        "m4": {"alice": 2, "bob": -2},
    }
    with Store.open(path) as store:
        rows = [{"key": key, "seats": list(chips), "hands": 10} for key, chips in matches.items()]
        tournament_id = store.create_tournament("t", "{}", rows)
        for key, chips in matches.items():
            _record(store, tournament_id, key, chips)
    yield path


def _lines(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.strip()[:1].isdigit()]


def test_builtin_elo_ranks_the_stored_matches(database: Path) -> None:
    """`--system elo` shows the incremental Elo of every bot, best first, as the system rates them."""
    result = CliRunner().invoke(cli, ["ratings", "--db", str(database), "--system", "elo"])
    assert 0 == result.exit_code, result.output
    assert "rating system elo" in result.output and "4 matches" in result.output
    with Store.open(database, create=False) as store:
        results, _ = stored_pair_results(store, GAME)
    expected = IncrementalElo().rate(results)
    order = sorted(expected, key=lambda bot: -expected[bot])
    rows = _lines(result.output)
    assert ["alice", "carol", "bob"] == order
    assert [bot in row for bot, row in zip(order, rows, strict=True)] == [True] * 3
    assert f"{expected['alice']:.0f}" in rows[0]


def test_batch_fit_shows_intervals(database: Path) -> None:
    """`--system bt-fit` gives each rating its 95% interval."""
    result = CliRunner().invoke(cli, ["ratings", "--db", str(database), "--system", "bt-fit"])
    assert 0 == result.exit_code, result.output
    assert all("±" in row for row in _lines(result.output))


def test_an_unknown_system_is_refused_naming_the_known_ones(database: Path) -> None:
    """A misspelt system is a usage error that lists what the plugins provide."""
    result = CliRunner().invoke(cli, ["ratings", "--db", str(database), "--system", "trueskil"])
    assert 2 == result.exit_code
    assert "'trueskil'" in result.output and "bt-fit, elo" in result.output


def test_a_plugin_s_rating_system_rates_the_stored_matches(
    database: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A third-party system from arena_rating_systems is picked by name and handed the results."""
    seen: list[list[PairResult]] = []

    class Wins:
        name = "wins"

        def rate(self, results):
            seen.append(list(results))
            wins: dict[str, float] = {}
            for r in results:
                wins[r.a] = wins.get(r.a, 0.0) + r.score
                wins[r.b] = wins.get(r.b, 0.0) + 1 - r.score
            return wins

    class Plugin:
        @hookimpl
        def arena_rating_systems(self):
            return [Wins()]

    def manager(*, autoload: bool):
        return get_plugin_manager(autoload=False, extra=[Plugin()])

    monkeypatch.setattr(rating_systems_cli, "get_plugin_manager", manager)
    result = CliRunner().invoke(cli, ["ratings", "--db", str(database), "--system", "wins"])
    assert 0 == result.exit_code, result.output
    assert 1 == len(seen) and 4 == len(seen[0])
    assert "alice" in _lines(result.output)[0]


def test_a_bot_absent_at_the_end_of_a_cut_short_match_lost_it(tmp_path: Path) -> None:
    """As for the live Elo: a forfeit of a match cut short is a loss, not a 0-chip draw."""
    with Store.open(tmp_path / "arena.db") as store:
        tournament_id = store.create_tournament(
            "t", "{}", [{"key": "m", "seats": ["alice", "bob"], "hands": 10}]
        )
        _record(
            store,
            tournament_id,
            "m",
            {"alice": 0, "bob": 0},
            reason="too few seats left",
            forfeited={"bob"},
        )
        results, matches = stored_pair_results(store, GAME)
    assert 1 == matches
    assert [("alice", "bob", 1.0)] == [(r.a, r.b, r.score) for r in results]


def test_ranked_shows_an_interval_only_when_the_system_gives_one() -> None:
    """Plain numbers show as numbers; a Rating shows its 95% interval."""
    rows = ranked({"a": 1500.4, "b": Rating("b", 1600.0, 1560.0, 1640.0, 3.0)})
    assert [("b", "1600 ± 40"), ("a", "1500")] == rows
