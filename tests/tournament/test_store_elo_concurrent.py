"""Issue 12 items 1 and 4 (audit): two coordinators of one shared PostgreSQL league lose no Elo.

Several tournaments may run on one PostgreSQL database at once (one coordinator each).
The Committer used to read the bots' current Elo in one transaction and write the new
ratings in a later one: the advisory write lock serialised the writes, not the
read-modify-write, so a match of the same bots recorded by another coordinator in
between was lost (its ``rating_after`` overwritten by a stale ``rating_before``). Here
the "other coordinator" records its match at the moment this one calls
``Store.record_match`` (after anything it could have read outside the transaction), on
a real PostgreSQL server (the suite's), then on SQLite (the same code path). Expected:
each bot's rating history is a chain (every ``rating_before`` is the previous row's
``rating_after``).
"""

from __future__ import annotations

import itertools
import threading
from pathlib import Path

import pytest
import trio
from postgres import postgres_server  # noqa: F401 (fixture)
from test_executor import write

from arena.store._store import RatingUpdate, SeatResult
from arena.tournament import Store, game_type_of, load_tournament, run_tournament
from arena.tournament._runner import prepare


@pytest.mark.parametrize("database", ["postgresql", "sqlite"])
def test_a_match_recorded_by_another_coordinator_meanwhile_is_not_lost(
    tmp_path: Path, request: pytest.FixtureRequest, database: str
) -> None:
    """(issue 12 items 1 and 4, audit: Elo lost update)"""
    if database == "postgresql":
        url = request.getfixturevalue("postgres_server").new_database()
    else:
        url = str(tmp_path / "league.db")
    paths = [write(tmp_path, name) for name in ("league-a", "league-b")]
    for path in paths:
        path.write_text(path.read_text().replace('database = "arena.db"', f'database = "{url}"'))
    config_a, config_b = (load_tournament(path) for path in paths)
    game_type = game_type_of(config_a.game)
    with Store.open(config_b.database) as other:
        _, b_id, _ = prepare(config_b, other, resume=False)
        b_key = other.schedule(b_id)[0].key
        b_seats = other.schedule(b_id)[0].seats

    real_record = Store.record_match
    real_rate = getattr(Store, "rate_match", None)  # where the Elo is written, if apart
    done = threading.Event()

    def other_commits() -> None:
        """The other coordinator records a match of the same bots, once, right now."""
        done.set()
        with Store.open(config_b.database, create=False) as other:
            now = other.current_ratings("elo", game_type)
            before = {name: now.get(name, 1500.0) for name in b_seats}
            real_record(
                other,
                b_id,
                b_key,
                game_type=game_type,
                big_blind=2,
                duplicate_block=1,
                result_summary={},
                seats=[
                    SeatResult(bot=b_seats[0], seat=0, chips=100, hands=10, unit_chips=(100,)),
                    SeatResult(bot=b_seats[1], seat=1, chips=-100, hands=10, unit_chips=(-100,)),
                ],
                records_dir=str(tmp_path / "b"),
                rating_updates=[
                    RatingUpdate(b_seats[0], "elo", game_type, before[b_seats[0]], 1516.0),
                    RatingUpdate(b_seats[1], "elo", game_type, before[b_seats[1]], 1484.0),
                ],
            )

    def record_match(self, *args, **kwargs):
        if kwargs.get("rating_updates") and not done.is_set():
            other_commits()
        return real_record(self, *args, **kwargs)

    def rate_match(self, *args, **kwargs):
        if not done.is_set():
            other_commits()
        return real_rate(self, *args, **kwargs)

    Store.record_match = record_match  # type: ignore[method-assign]
    if real_rate is not None:
        Store.rate_match = rate_match  # type: ignore[attr-defined]
    try:

        async def main():
            with Store.open(config_a.database) as store:
                return await run_tournament(config_a, store)

        trio.run(main)
    finally:
        Store.record_match = real_record  # type: ignore[method-assign]
        if real_rate is not None:
            Store.rate_match = real_rate  # type: ignore[attr-defined]
    assert done.is_set()
    with Store.open(config_a.database, create=False) as store:
        for bot in ("calling-station", "rule-based"):
            rows = store.rating_history(bot=bot, system="elo", game_type=game_type)
            assert len(rows) > 1
            chain = [(row.tournament, row.rating_before, row.rating_after) for row in rows]
            for previous, row in itertools.pairwise(rows):
                assert row.rating_before == previous.rating_after, (
                    f"{bot}: the update of {previous.tournament}/{previous.match_key} was "
                    f"lost: {chain}"
                )
