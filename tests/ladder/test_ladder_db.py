"""The ladder's rows (issue 22 items 1, 3, 4, 8): teams with hashed tokens, versions and
their statuses, the one-build-in-flight and per-day limits, jobs with leases that survive
a restart, and results rated exactly once."""

from __future__ import annotations

import dataclasses

import pytest

from arena.ladder._db import (
    ACTIVE,
    BENCHED,
    QUEUED,
    RETIRED,
    LadderDB,
    Refused,
    hash_token,
)
from arena.ladder._jobs import (
    BATCH,
    BUILD,
    SeatOutcome,
    busy_versions,
    claim,
    create_batch,
    finish,
    rate_match,
    requeue_running,
)
from arena.ladder._rating import Skill
from arena.tournament import build_schedule, parse_tournament


@pytest.fixture
def ladder(tmp_path):
    with LadderDB.open(tmp_path / "ladder.db") as db:
        yield db


def test_a_token_is_stored_only_as_its_hash(ladder, tmp_path):
    token = ladder.add_team("alice")
    assert ladder.team_for_token(token).name == "alice"
    raw = (tmp_path / "ladder.db").read_bytes()
    assert token.encode() not in raw
    assert hash_token(token).encode() in raw or ladder.team("alice") is not None
    assert ladder.team_for_token(token + "x") is None
    ladder.set_disabled("alice", True)
    assert ladder.team_for_token(token) is None


def test_one_build_in_flight_and_a_daily_limit(ladder):
    ladder.add_team("bob")
    team = ladder.team("bob")
    first = ladder.add_version(team, "a" * 64, "bot.tar.gz", "sources/a", per_day=2)
    assert first.status == QUEUED and first.number == 1 and first.bot_name == "bob-v1"
    with pytest.raises(Refused) as busy:
        ladder.add_version(team, "b" * 64, "bot.tar.gz", "sources/b", per_day=2)
    assert busy.value.status == 429 and "still queued" in busy.value.message
    ladder.set_status(first.id, "build failed", "no bot.toml")
    ladder.add_version(team, "b" * 64, "bot.tar.gz", "sources/b", per_day=2)
    ladder.set_status(2, "rejected", "crashed")
    with pytest.raises(Refused) as limit:
        ladder.add_version(team, "c" * 64, "bot.tar.gz", "sources/c", per_day=2)
    assert limit.value.status == 429 and "24 hours" in limit.value.message


def test_newest_accepted_is_active_unless_pinned(ladder):
    ladder.add_team("carol")
    team = ladder.team("carol")
    ids = []
    for n in range(3):
        version = ladder.add_version(team, f"{n}" * 64, "b.zip", f"sources/{n}", per_day=10)
        ladder.set_status(version.id, ACTIVE)
        ids.append(version.id)
    statuses = [ladder.version(i).status for i in ids]
    assert statuses == [RETIRED, RETIRED, ACTIVE]
    ladder.pin(team.id, 1)
    assert [ladder.version(i).status for i in ids] == [ACTIVE, RETIRED, RETIRED]
    ladder.pin(team.id, None)
    ladder.set_status(ids[2], BENCHED, "faults")
    assert [ladder.version(i).status for i in ids] == [RETIRED, ACTIVE, BENCHED]


def test_a_running_job_is_taken_again_after_a_restart(ladder):
    ladder.add_team("dan")
    version = ladder.add_version(ladder.team("dan"), "d" * 64, "b.zip", "sources/d", per_day=10)
    job = claim(ladder, BUILD, lease=600)
    assert job is not None and job.subject == version.id
    assert claim(ladder, BUILD, lease=600) is None  # leased
    assert requeue_running(ladder) == 1  # the server was killed; a new one starts
    again = claim(ladder, BUILD, lease=600)
    assert again.subject == version.id and again.attempts == 2
    finish(ladder, again)
    assert claim(ladder, BUILD, lease=600) is None


def test_a_match_is_rated_once_and_a_faulty_version_benched(ladder):
    versions = []
    for name in ("eve", "fay"):
        ladder.add_team(name)
        v = ladder.add_version(ladder.team(name), name[0] * 64, "b.zip", "s", per_day=10)
        ladder.set_status(v.id, ACTIVE)
        versions.append(v)
    batch = create_batch(ladder, [[versions[0].id, versions[1].id]])
    assert busy_versions(ladder) == {versions[0].id, versions[1].id}
    assert claim(ladder, BATCH, lease=60).subject == batch.id
    seats = [
        SeatOutcome(versions[0].id, 0, 40, 100, 0),
        SeatOutcome(versions[1].id, 1, -40, 100, 30),
    ]
    skills = {versions[0].id: Skill(27.0, 7.0), versions[1].id: Skill(23.0, 7.0)}
    args = dict(records="r", bench=(0.1, 100))
    assert rate_match(ladder, batch.tournament, "r1-m001", seats, skills, **args)
    assert not rate_match(ladder, batch.tournament, "r1-m001", seats, skills, **args)
    winner, loser = (ladder.version(v.id) for v in versions)
    assert winner.matches == 1 and winner.skill == Skill(27.0, 7.0)
    assert loser.status == BENCHED and "30 faults in 100 hands" in loser.reason


def test_explicit_tables_are_the_schedule():
    """A batch's tables (any mix of sizes) are played as given, each once (R1: 2-7 seats)."""
    config = parse_tournament(
        '[tournament]\nname = "t"\nseed = 3\n'
        + "".join(f'[[bots]]\nname = "{n}"\nbuiltin = "random"\n' for n in "abcde")
    )
    config = dataclasses.replace(config, tables=(("a", "b"), ("c", "d", "e")))
    schedule = build_schedule(config)
    assert [m.seats for m in schedule] == [("a", "b"), ("c", "d", "e")]
    assert [m.hands for m in schedule] == [config.hands_for(2), config.hands_for(3)]
    assert '"tables":[["a","b"],["c","d","e"]]' in config.to_json()
