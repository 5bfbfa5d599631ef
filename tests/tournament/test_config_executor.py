"""Tournament-file keys for where matches run (issue 12 items 3 and 5): fast, no Ray.

``tournament.max_live_bots`` (bots on a budget), ``tournament.executor``,
``tournament.ray_address`` and a bot's ``ray_resources``: each parsed, each refused in one
line naming the key, none stored in ``to_json`` (a league may resume elsewhere).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.executors import ProcessExecutor, RayExecutor, executor_of
from arena.tournament import TournamentConfig, TournamentConfigError, parse_tournament

BOTS = """
[[bots]]
name = "random"
builtin = "random"

[[bots]]
name = "station"
builtin = "calling-station"

[[bots]]
name = "rules"
builtin = "rule-based"
"""


def parse(tournament: str, bots: str = BOTS) -> TournamentConfig:
    return parse_tournament(f'[tournament]\nname = "t"\nseed = 1\n{tournament}\n{bots}', "t.toml")


def refused(tournament: str, bots: str = BOTS) -> TournamentConfigError:
    with pytest.raises(TournamentConfigError) as info:
        parse(tournament, bots)
    return info.value


class TestMaxLiveBots:
    """issue 12 item 5: ``tournament.max_live_bots``, read by the bots-on-a-budget code."""

    def test_absent_is_none(self) -> None:
        """No key, no bound."""
        assert parse("").max_live_bots is None

    def test_whole_number_is_kept(self) -> None:
        """A bound at or past one match's bots is kept as given."""
        assert parse("max_live_bots = 12").max_live_bots == 12

    def test_duplicate_heads_up_needs_four(self) -> None:
        """Duplicate heads-up opens 2 seats x 2 rotations: 4 is the least, 3 is refused."""
        assert parse("max_live_bots = 4").max_live_bots == 4
        error = refused("max_live_bots = 3")
        assert error.key == "tournament.max_live_bots"
        assert "at least 4" in str(error) and "\n" not in str(error)

    def test_not_duplicate_needs_the_seats(self) -> None:
        """Without duplicate one bot process a seat is enough."""
        assert parse("duplicate = false\nmax_live_bots = 2").max_live_bots == 2
        assert "at least 2" in str(refused("duplicate = false\nmax_live_bots = 1"))

    def test_ring_needs_seats_times_rotations(self) -> None:
        """A duplicate ring of 3 needs 9; without duplicate, 3."""
        ring = 'format = "ring"\ntable_size = 3\n'
        assert parse(ring + "max_live_bots = 9").max_live_bots == 9
        assert "at least 9" in str(refused(ring + "max_live_bots = 8"))
        assert parse(ring + "duplicate = false\nmax_live_bots = 3").max_live_bots == 3

    @pytest.mark.parametrize("value", ['"auto"', "4.5", "true", "0", "-4"])
    def test_not_a_whole_number_is_refused(self, value: str) -> None:
        """A string, a float, a boolean or a number below 1 names the key."""
        error = refused(f"max_live_bots = {value}")
        assert error.key == "tournament.max_live_bots"

    def test_not_stored(self) -> None:
        """A tournament may resume with another bound: to_json is the same either way."""
        assert parse("max_live_bots = 40").to_json() == parse("").to_json()


REMOTE = """
[[bots]]
name = "random"
builtin = "random"

[[bots]]
name = "visitor"
remote = true
"""


def pinned(resources: str) -> str:
    return BOTS.replace(
        'builtin = "random"\n', f'builtin = "random"\nray_resources = {resources}\n', 1
    )


class TestExecutor:
    """issue 12 item 3: ``tournament.executor`` and ``tournament.ray_address``."""

    def test_default_is_local(self) -> None:
        """No key: this machine, in-process with workers = 1; no executor object at all."""
        config = parse("")
        assert (config.executor, config.ray_address, config.ray_resources) == ("local", None, {})
        assert config.in_process and executor_of(config) is None and config.executor_notes() == []

    def test_local_with_workers_is_the_process_pool(self) -> None:
        """executor = "local" and workers = 2: worker processes, as before."""
        config = parse('executor = "local"\nworkers = 2')
        assert not config.in_process and isinstance(executor_of(config), ProcessExecutor)

    def test_ray_defaults_to_auto(self) -> None:
        """executor = "ray" with no address asks Ray for "auto"; not in-process."""
        config = parse('executor = "ray"')
        executor = executor_of(config)
        assert isinstance(executor, RayExecutor) and executor.address == "auto"
        assert not config.in_process and executor.source == "t.toml"

    @pytest.mark.parametrize(
        "address",
        ["auto", "local", "10.0.0.5:6379", "head.lan:6379", "ray://10.0.0.5:10001", "[::1]:6379"],
    )
    def test_ray_address_as_ray_takes_it(self, address: str) -> None:
        """Every form ray.init(address=...) takes reaches the executor as written."""
        executor = executor_of(parse(f'executor = "ray"\nray_address = "{address}"'))
        assert isinstance(executor, RayExecutor) and executor.address == address

    @pytest.mark.parametrize(
        "value",
        [
            '"atuo"',
            '"10.0.0.5"',
            '"http://h:1"',
            '""',
            "6379",
            '"h:1 x"',
            '"h:0"',
            '"h:70000"',
            '"ray://h:99999"',
        ],
    )
    def test_not_a_ray_address_is_refused(self, value: str) -> None:
        """A typo, a host with no port, another scheme or a number: one line naming the key."""
        error = refused(f'executor = "ray"\nray_address = {value}')
        assert error.key == "tournament.ray_address" and "\n" not in str(error)

    @pytest.mark.parametrize("value", ['"dask"', '"Ray"', "1", "true"])
    def test_unknown_executor_is_refused(self, value: str) -> None:
        """Only "local" and "ray"."""
        error = refused(f"executor = {value}")
        assert error.key == "tournament.executor" and "'local', 'ray'" in str(error)

    def test_not_stored(self) -> None:
        """A league may resume on another executor: to_json is the same either way."""
        ray = parse('executor = "ray"\nray_address = "10.0.0.5:6379"', pinned("{ box = 1 }"))
        assert ray.to_json() == parse("").to_json()
        assert "ray_resources" not in ray.bot("random").to_dict()

    def test_ray_keys_under_local_are_ignored_with_a_note(self) -> None:
        """One league file can be tried here: the Ray keys are accepted and named in a note."""
        config = parse('ray_address = "10.0.0.5:6379"', pinned("{ box = 1 }"))
        assert config.in_process and executor_of(config) is None
        (note,) = config.executor_notes()
        assert "tournament.ray_address" in note and "bots[0].ray_resources" in note
        assert "ignored" in note and "t.toml" in note

    def test_workers_under_ray_is_not_used_with_a_note(self) -> None:
        """With Ray the cluster's CPUs decide how many matches run at once."""
        (note,) = parse('executor = "ray"\nworkers = 4').executor_notes()
        assert "tournament.workers is not used" in note and "t.toml" in note

    def test_remote_bots_are_refused_with_ray(self) -> None:
        """A bot that dials in plays only in the coordinator, as with workers > 1."""
        error = refused('executor = "ray"', REMOTE)
        assert error.key == "tournament.executor"
        assert "'visitor'" in str(error) and "dials in" in str(error) and "\n" not in str(error)

    def test_remote_bots_are_kept_with_local(self) -> None:
        """executor = "local", workers = 1: remote bots as before (arena serve)."""
        assert parse('executor = "local"', REMOTE).bot("visitor").kind == "remote"


class TestRayResources:
    """issue 12 item 3: a bot's ``ray_resources`` pins its matches to nodes that have them."""

    def test_a_table_of_amounts_by_bot(self) -> None:
        """Whole numbers and fractions up to 1; only the bots that ask are listed."""
        config = parse('executor = "ray"', pinned('{ gpu_box = 1, "node:10.0.0.5" = 0.5 }'))
        assert config.ray_resources == {"random": {"gpu_box": 1.0, "node:10.0.0.5": 0.5}}
        executor = executor_of(config)
        assert isinstance(executor, RayExecutor)
        assert executor.resources == {"random": {"gpu_box": 1.0, "node:10.0.0.5": 0.5}}

    def test_a_sub_table_works_too(self) -> None:
        """``[bots.ray_resources]`` is the same TOML table."""
        bots = BOTS.replace(
            'builtin = "random"\n', 'builtin = "random"\n[bots.ray_resources]\nbox = 2\n', 1
        )
        assert parse('executor = "ray"', bots).ray_resources == {"random": {"box": 2.0}}

    def test_the_bot_still_round_trips_through_a_match_spec(self) -> None:
        """Workers rebuild a bot from its to_dict: ray_resources is not part of it."""
        from arena.tournament._config_load import bot_from_dict

        bot = parse('executor = "ray"', pinned("{ box = 1 }")).bot("random")
        assert bot_from_dict(bot.to_dict()) == bot

    @pytest.mark.parametrize(
        ("value", "key", "words"),
        [
            ("3", "bots[0].ray_resources", "must be a table"),
            ("{ box = 0 }", "bots[0].ray_resources.box", "above 0"),
            ("{ box = -1 }", "bots[0].ray_resources.box", "above 0"),
            ('{ box = "1" }', "bots[0].ray_resources.box", "above 0"),
            ("{ box = true }", "bots[0].ray_resources.box", "above 0"),
            ("{ box = nan }", "bots[0].ray_resources.box", "above 0"),
            ("{ box = 1.5 }", "bots[0].ray_resources.box", "whole number"),
            ("{ CPU = 1 }", "bots[0].ray_resources", "Ray's own"),
            ("{ GPU = 1 }", "bots[0].ray_resources", "Ray's own"),
            ('{ "a b" = 1 }', "bots[0].ray_resources", "not a Ray resource name"),
            ('{ "" = 1 }', "bots[0].ray_resources", "not a Ray resource name"),
        ],
    )
    def test_bad_resources_are_refused(self, value: str, key: str, words: str) -> None:
        """Each in one line naming the bot's key (Ray would refuse them later, or hang)."""
        error = refused('executor = "ray"', pinned(value))
        assert error.key == key and words in str(error) and "\n" not in str(error)

    def test_an_empty_table_pins_nothing(self) -> None:
        """``ray_resources = {}`` asks for nothing."""
        assert parse('executor = "ray"', pinned("{}")).ray_resources == {}


HIDE_RAY = textwrap.dedent(
    """
    import sys

    class NoRay:  # `import ray` fails as it does where Ray is not installed
        def find_spec(self, name, path=None, target=None):
            if name == "ray" or name.startswith("ray."):
                raise ModuleNotFoundError(f"No module named {name!r}")
            return None

    sys.meta_path.insert(0, NoRay())
    from arena.cli import main

    sys.argv[0] = "arena"
    main()
    """
)


def test_ray_not_installed_is_one_line_and_records_nothing(tmp_path: Path) -> None:
    """``arena tournament run FILE`` with executor = "ray" where Ray is missing: the
    install line naming the file, exit 1, no database made (issue 12 item 3)."""
    path = tmp_path / "league.toml"
    path.write_text(f'[tournament]\nname = "league"\nseed = 1\nexecutor = "ray"\n{BOTS}')
    run = subprocess.run(
        [sys.executable, "-c", HIDE_RAY, "tournament", "run", str(path), "--no-plugins"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    line = run.stderr.strip()
    assert run.returncode == 1, line
    assert line == (
        f"Error: tournament.executor = 'ray' needs Ray: pip install 'arena[ray]' ({path})"
    )
    assert not (tmp_path / "arena.db").exists()


def test_the_ray_league_example_loads() -> None:
    """examples_tournaments/ray_league.toml: executor = "ray" at "auto", its scripts there."""
    from arena.tournament import load_tournament

    path = Path(__file__).resolve().parents[2] / "examples_tournaments" / "ray_league.toml"
    config = load_tournament(path)
    assert (config.executor, config.ray_address) == ("ray", "auto")
    for bot in config.bots:
        if bot.command is not None:
            script = next(arg for arg in bot.argv[1:] if arg.endswith(".py"))
            assert (bot.workdir / script).is_file(), script
