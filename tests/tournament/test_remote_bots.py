"""Bots that dial in, in tournament files and tournaments (issue 11 item 4).

``arena serve`` hands the tournament one leasable driver per remote bot; here that is
:class:`test_dispatch.FakeRemote` (in-process policies under each leased stream), whose
"connected" streams the test sets. Nothing here asserts a timing.
"""

from __future__ import annotations

import contextlib
import json
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import trio
from test_dispatch import FakeRemote

from arena.dealer import BotDriver, MatchSettings, policy_driver, run_duplicate_match
from arena.engine import GameConfig
from arena.tournament import (
    BotSpecError,
    Progress,
    Store,
    TournamentConfigError,
    load_tournament,
    open_builtin_bot,
    parse_bot_text,
    parse_tournament,
    run_tournament,
)
from arena.tournament._errors import interrupted


def write(folder: Path, name: str, bots: str, *, duplicate: bool = False, hands: int = 4) -> Path:
    path = folder / f"{name}.toml"
    head = f"""
        [tournament]
        name = "{name}"
        hands_per_match = {hands}
        duplicate = {str(duplicate).lower()}
        concurrency = 2
        seed = 11
        output = "runs"
        database = "arena.db"

        [game]
        structure = "fixed_limit"
        big_blind = 2
        """
    path.write_text(textwrap.dedent(head) + textwrap.dedent(bots))
    return path


THREE = """
    [[bots]]
    name = "early"
    remote = true

    [[bots]]
    name = "late"
    remote = true

    [[bots]]
    name = "house"
    builtin = "rule-based"
    """


def opener(config, remotes: dict[str, FakeRemote]):
    """What `arena serve` passes as open_driver: its driver for remote bots, the rest as usual."""

    @contextlib.asynccontextmanager
    async def open_driver(spec) -> AsyncIterator[BotDriver]:
        if spec.kind == "remote":
            yield remotes[spec.target]  # type: ignore[misc]
            return
        async with open_builtin_bot(spec, config.driver_context()) as driver:
            yield driver

    return open_driver


class Watcher:
    """Keeps every waiting_for change and the order matches were recorded in."""

    def __init__(self, when_waiting=None) -> None:
        self.waiting: list[list[str]] = []
        self.recorded: list[str] = []
        self.when_waiting = when_waiting

    def __call__(self, progress: Progress) -> None:
        if progress.last_match and progress.last_match not in self.recorded:
            self.recorded.append(progress.last_match)
        if not self.waiting or self.waiting[-1] != progress.waiting_for:
            self.waiting.append(list(progress.waiting_for))
            if progress.waiting_for and self.when_waiting is not None:
                self.when_waiting(progress.waiting_for)


def test_a_round_robin_waits_for_a_bot_that_connects_late_and_plays_the_others_meanwhile(
    tmp_path: Path,
) -> None:
    """issue 11 item 4: two remote bots and a builtin; `late` has no stream until the runner
    says it waits for it: the match without it is played first (though scheduled second),
    then the rest, each recorded once, and the tournament finishes. A lease refused once
    (LookupError) is tried again."""
    config = load_tournament(write(tmp_path, "late", THREE))
    remotes = {"early": FakeRemote("early", streams=1), "late": FakeRemote("late")}

    def connect(names: list[str]) -> None:
        assert ["late"] == names
        remotes["late"].streams = 1
        remotes["late"].refuse = 1  # that stream goes away between the check and the lease

    watcher = Watcher(connect)
    with Store.open(config.database) as store:
        progress = trio.run(
            lambda: run_tournament(
                config, store, on_progress=watcher, open_driver=opener(config, remotes)
            )
        )
        tournament = store.get_tournament("late")
        schedule = store.schedule(tournament.id)
        rows = store.match_rows(tournament="late")
        assert "finished" == tournament.status
    assert (3, 3) == (progress.done, progress.total)
    assert sorted(m.key for m in schedule) == sorted(row.key for row in rows)  # each once
    assert "late" in schedule[0].seats  # scheduled first, yet it had to wait
    first = next(m for m in schedule if m.key == watcher.recorded[0])
    assert "late" not in first.seats  # played while `late` was away
    assert [[], ["late"], []] == watcher.waiting
    assert not [n for n in progress.notes if "dials in" in n]  # one stream per match will do
    assert [] == progress.waiting_for
    assert 0 == remotes["late"].refuse  # the refused lease happened, and was tried again
    assert [1, 1] == remotes["early"].leases and [1, 1] == remotes["late"].leases
    assert 0 == remotes["early"].leased == remotes["late"].leased  # every stream given back


def test_duplicate_matches_lease_a_stream_per_seat_and_are_not_isolated(tmp_path: Path) -> None:
    """issue 11 item 4: a remote bot plays both rotations on two streams of one process:
    it leases 2 at once, and duplicate_isolated is False (as for an address bot)."""
    bots = """
        [[bots]]
        name = "far"
        remote = true

        [[bots]]
        name = "house"
        builtin = "rule-based"
        """
    config = load_tournament(write(tmp_path, "dup", bots, duplicate=True))
    remotes = {"far": FakeRemote("far", streams=2)}
    with Store.open(config.database) as store:
        progress = trio.run(
            lambda: run_tournament(config, store, open_driver=opener(config, remotes))
        )
        (row,) = store.match_rows(tournament="dup")
    assert [2] == remotes["far"].leases
    (note,) = [n for n in progress.notes if "dials in" in n]
    assert "bot 'far'" in note and "at least 2 open" in note  # one stream would wait forever
    assert row.summary["duplicate_isolated"] is False
    result = json.loads((Path(row.records_dir) / "result.json").read_text())
    assert result["duplicate_isolated"] is False


def test_duplicate_isolated_counts_a_driver_s_process() -> None:
    """issue 11 item 4: streams naming one `process` are one process; fresh drivers are not."""
    remote = FakeRemote("r", streams=2)
    settings = MatchSettings(config=GameConfig(), hands=2, seed=3)

    async def play(tables):
        return await run_duplicate_match(tables, settings)

    a, b = remote.lease(2)
    shared = trio.run(
        play, [[a, policy_driver("x", "random", 1)], [b, policy_driver("x", "random", 1)]]
    )
    fresh = [[policy_driver(n, "random", 1) for n in "rx"] for _ in range(2)]
    assert shared.duplicate_isolated is False
    assert trio.run(play, fresh).duplicate_isolated is True


@pytest.mark.parametrize("with_plugins", [False, True])
def test_a_remote_bot_without_arena_serve_does_not_start(
    tmp_path: Path, with_plugins: bool
) -> None:
    """issue 11 item 4: no opener for kind remote (plain run, or the plugins): its matches are
    forfeits `not started`, the note says remote bots need `arena serve`."""
    from arena.plugins import get_plugin_manager, open_driver

    pm = get_plugin_manager(autoload=False)
    config = load_tournament(write(tmp_path, "alone", THREE))

    def plugged(spec):
        return open_driver(pm, spec, config.driver_context())

    chosen = plugged if with_plugins else None
    with Store.open(config.database) as store:
        progress = trio.run(lambda: run_tournament(config, store, open_driver=chosen))
    assert 3 == progress.not_started  # every match has a remote bot
    notes = [note for note in progress.notes if "did not start" in note]
    assert 2 == len(notes) and all("remote bots need `arena serve`" in n for n in notes)


def test_resume_after_an_interruption_with_a_remote_bot_plays_the_rest(tmp_path: Path) -> None:
    """issue 11 item 4: Ctrl-C while waiting for a remote bot keeps what is recorded; resume
    with the same file (its `remote = true` stored and compared) plays the rest, none twice."""
    path = write(tmp_path, "again", THREE)
    config = load_tournament(path)
    assert {"name": "late", "remote": True} == config.bot("late").to_dict()
    remotes = {"early": FakeRemote("early", streams=1), "late": FakeRemote("late")}

    def ctrl_c(names: list[str]) -> None:
        raise KeyboardInterrupt

    with Store.open(config.database) as store:
        with pytest.raises(BaseException) as stopped:
            trio.run(
                lambda: run_tournament(
                    config,
                    store,
                    on_progress=Watcher(ctrl_c),
                    open_driver=opener(config, remotes),
                )
            )
        assert interrupted(stopped.value)
        assert 1 == len(store.match_rows(tournament="again"))
        stored = json.loads(store.get_tournament("again").config_json)
        assert {"name": "late", "remote": True} in stored["bots"]
        again = load_tournament(path)
        remotes = {"early": FakeRemote("early", streams=1), "late": FakeRemote("late", streams=1)}
        progress = trio.run(
            lambda: run_tournament(again, store, resume=True, open_driver=opener(again, remotes))
        )
        rows = store.match_rows(tournament="again")
        assert "finished" == store.get_tournament("again").status
    assert (3, 3) == (progress.done, progress.total)
    assert 3 == len({row.key for row in rows}) == len(rows)


BOT = """
[tournament]
name = "t"

[[bots]]
name = "a"
builtin = "random"

[[bots]]
name = "b"
"""


def test_remote_true_makes_a_bot_that_dials_in() -> None:
    """issue 11 item 4: `remote = true` alone: kind remote, target its own name (copies too)."""
    bot = parse_tournament(BOT + "remote = true\n", "t.toml").bot("b")
    assert ("remote", "b", None) == (bot.kind, bot.target, bot.workdir)
    assert "b" == bot.renamed("b.2").target
    assert {"name": "b", "remote": True} == bot.to_dict()


@pytest.mark.parametrize(
    ("extra", "key", "fragment"),
    [
        ('remote = "yes"', "bots[1].remote", "must be true or false"),
        ("remote = 1", "bots[1].remote", "must be true or false"),
        ('remote = true\ncommand = "x"', "bots[1].command", "remove command"),
        ('remote = true\naddress = "127.0.0.1:5"', "bots[1].address", "remove address"),
        ('remote = true\nbuiltin = "random"', "bots[1].builtin", "remove builtin"),
        ('remote = true\nplugin = "p"', "bots[1].plugin", "remove plugin"),
        ('remote = true\ntarget = "p"', "bots[1].target", "remove target"),
        ('remote = true\nrequires = "node"', "bots[1].requires", "is a remote bot"),
        ('remote = true\nworkdir = "w"', "bots[1].workdir", "is a remote bot"),
        ("remote = true\n[bots.limits]\nmax_processes = 4", "bots[1].limits", "is a remote bot"),
        ('plugin = "remote"', "bots[1].plugin", "use remote = true"),
        ("remote = false", "bots[1]", "or remote = true"),
    ],
)
def test_remote_errors_name_the_key(extra: str, key: str, fragment: str) -> None:
    """issue 11 item 4: each wrong use of `remote` is one line naming the key."""
    with pytest.raises(TournamentConfigError) as caught:
        parse_tournament(BOT + extra + "\n", "t.toml")
    message = str(caught.value)
    assert message.startswith(f"t.toml: {key}: "), message
    assert fragment in message and "\n" not in message


@pytest.mark.parametrize(
    ("text", "name", "target"),
    [
        ("remote:alice", "alice", "alice"),
        ("me=remote:alice", "me", "alice"),
        ("remote:50051", "50051", "50051"),  # remote: wins over HOST:PORT
    ],
)
def test_remote_on_the_command_line(text: str, name: str, target: str) -> None:
    """issue 11 item 4: `[NAME=]remote:BOT` is a bot that dials in."""
    bot = parse_bot_text(text)
    assert ("remote", name, target) == (bot.kind, bot.name, bot.target)


@pytest.mark.parametrize("text", ["remote:", "remote:a b", "remote:x/y", "plugin:remote:x"])
def test_bad_remote_on_the_command_line(text: str) -> None:
    """issue 11 item 4: a remote target must be a bot name; plugin:remote is refused."""
    with pytest.raises(BotSpecError) as caught:
        parse_bot_text(text)
    assert caught.value.field in ("remote", "plugin")
