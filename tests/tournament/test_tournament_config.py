"""Tournament files: loading, defaults, and errors that name the file, the key and the fix."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from arena.dealer import MatchSettings, OnFaultLimit
from arena.engine import GameConfig, Structure
from arena.tournament import (
    Format,
    TournamentConfig,
    TournamentConfigError,
    load_tournament,
    parse_tournament,
)
from arena.tournament._formats import build_schedule

EXAMPLES = Path(__file__).resolve().parents[2] / "examples_tournaments"

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


def parse(text: str, **kwargs) -> TournamentConfig:
    return parse_tournament(text, "t.toml", **kwargs)


def error_of(text: str) -> TournamentConfigError:
    with pytest.raises(TournamentConfigError) as info:
        parse(text)
    return info.value


def minimal(tournament: str = "", extra: str = "", bots: str = BOTS) -> str:
    return f'[tournament]\nname = "demo"\n{tournament}\n{extra}\n{bots}'


class TestValidFiles:
    def test_minimal_file_gets_the_documented_defaults(self, tmp_path):
        """A name and two bots are enough; everything else has a default."""
        config = parse(minimal(), base_dir=tmp_path)
        assert config.format is Format.ROUND_ROBIN
        assert (config.hands_per_match, config.duplicate, config.rounds) == (200, True, 1)
        assert config.game == GameConfig()
        assert config.stack == 200
        assert config.timeouts.action == 1.0
        assert config.timeouts.on_fault_limit is OnFaultLimit.SIT_OUT
        assert (config.ratings.k, config.ratings.start) == (16.0, 1500.0)
        assert config.bot_names == ("random", "station", "rules")

    def test_relative_paths_resolve_against_the_base_folder(self, tmp_path):
        """``output``, ``database`` and command bots' working folder follow the TOML file."""
        text = minimal(
            'output = "out"\ndatabase = "db/a.db"',
            bots=BOTS + '[[bots]]\nname = "mc"\ncommand = "{python} ../bots/mc.py"\n',
        )
        config = parse(text, base_dir=tmp_path)
        assert config.output == tmp_path.resolve() / "out"
        assert config.database == tmp_path.resolve() / "db" / "a.db"
        mc = config.bot("mc")
        assert mc.workdir == tmp_path.resolve()
        assert mc.argv == [sys.executable, "../bots/mc.py"]
        assert (mc.kind, mc.target) == ("command", "{python} ../bots/mc.py")

    def test_seed_is_drawn_when_absent_and_kept_when_given(self):
        """No seed: one is drawn and flagged for recording; a given seed is used as is."""
        drawn = parse(minimal())
        assert drawn.seed_drawn and 0 <= drawn.seed < 2**63
        given = parse(minimal("seed = 42"))
        assert (given.seed, given.seed_drawn) == (42, False)
        assert drawn.with_seed(42).to_json() == given.to_json()

    def test_to_json_is_canonical_and_round_trips_through_json(self):
        """Equal files give equal JSON; a changed setting changes it."""
        a = parse(minimal("seed = 1"))
        b = parse(minimal("seed = 1"))
        c = parse(minimal("seed = 1\nhands_per_match = 100"))
        assert a.to_json() == b.to_json() != c.to_json()
        data = json.loads(a.to_json())
        assert data["game"]["structure"] == "fixed_limit"
        assert data["bots"][0] == {"name": "random", "builtin": "random"}

    def test_game_table_builds_the_engine_config(self):
        """``[game]`` keys go to :class:`GameConfig`; ``stack`` is kept beside it."""
        config = parse(minimal(extra='[game]\nstructure = "no_limit"\nbig_blind = 4\nstack = 400'))
        assert config.game_config().structure is Structure.NO_LIMIT
        assert config.game_config().big_blind == 4
        assert config.stack == 400

    def test_match_settings_carry_the_clocks_and_the_match(self):
        """The dealer's settings come from the file and the scheduled match."""
        text = minimal(
            "seed = 3\nhands_per_match = 7",
            "[timeouts]\naction = 0.5\ntime_bank = 2\nfault_limit = 3\non_fault_limit = 'forfeit'",
        )
        config = parse(text)
        match = build_schedule(config)[0]
        settings = config.match_settings(match)
        assert isinstance(settings, MatchSettings)
        assert settings.hands == 8  # duplicate: rounded up to a multiple of 2 seats
        assert (settings.seed, settings.duplicate) == (match.seed, True)
        assert (settings.action_timeout, settings.time_bank) == (0.5, 2.0)
        assert (settings.fault_limit, settings.on_fault_limit) == (3, OnFaultLimit.FORFEIT)
        assert settings.table_id == match.key
        assert settings.match_id == f"demo/{match.key}"

    def test_missing_executable_skips_the_bot_with_a_note(self):
        """``requires`` naming an absent program drops that bot and says so."""
        text = minimal(
            bots=BOTS
            + '[[bots]]\nname = "ghost"\ncommand = "x"\nrequires = "no-such-program-xyz"\n'
        )
        config, notes = parse(text).without_unavailable()
        assert "ghost" not in config.bot_names
        assert notes == [
            "skipping bot 'ghost': 'no-such-program-xyz' is not installed (not found on PATH)"
        ]

    def test_skipping_below_two_bots_is_an_error(self):
        """Skipping may not leave a tournament that cannot be played."""
        bots = (
            '[[bots]]\nname = "a"\nbuiltin = "random"\n'
            '[[bots]]\nname = "b"\ncommand = "x"\nrequires = "no-such-program-xyz"\n'
        )
        with pytest.raises(TournamentConfigError, match=r"at least 2 bots.*after skipping 'b'"):
            parse(minimal(bots=bots)).without_unavailable()

    @pytest.mark.parametrize("name", ["demo.toml", "ring.toml", "ladder.toml"])
    def test_example_files_load_and_schedule(self, name):
        """The example tournaments are valid and their commands' scripts exist."""
        config = load_tournament(EXAMPLES / name)
        assert build_schedule(config)
        for bot in config.bots:
            if bot.command is not None:
                script = next(arg for arg in bot.argv[1:] if arg.endswith((".py", ".js")))
                assert (bot.workdir / script).is_file(), script


class TestErrors:
    """Each error is one line: the file, the key path, what is wrong."""

    @pytest.mark.parametrize(
        ("text", "key", "fragment"),
        [
            (
                minimal(extra='[game]\nstructure = "spread_limit"'),
                "game.structure",
                "'fixed_limit'",
            ),
            (minimal(extra="[game]\nmax_draw = 2"), "game.max_draw", "must be 3, 4 or 5"),
            (minimal(extra='[game]\nante = "x"'), "game.ante", "whole number"),
            (minimal(extra="[game]\nmax_drw = 3"), "game.max_drw", "did you mean 'max_draw'"),
            ('[tournament]\nformat = "ring"\n' + BOTS, "tournament.name", "missing"),
            (BOTS, "tournament", "missing"),
            (
                minimal(bots='[[bots]]\nname = "a"\nbuiltin = "random"\ncommand = "x"\n' + BOTS),
                "bots[0].command",
                "exactly one of builtin, command, address or plugin",
            ),
            (
                minimal(bots='[[bots]]\nname = "a"\n' + BOTS),
                "bots[0]",
                "exactly one of builtin, command, address or plugin (got none)",
            ),
            (
                minimal(bots=BOTS + '[[bots]]\nname = "x"\nbuiltin = "genius"\n'),
                "bots[3].builtin",
                "unknown built-in 'genius'",
            ),
            (
                minimal(bots=BOTS + '[[bots]]\nname = "random"\nbuiltin = "random"\n'),
                "bots[3].name",
                "'random' is already the name of bots[0]",
            ),
            (
                minimal(bots=BOTS + '[[bots]]\nname = "bad name!"\nbuiltin = "random"\n'),
                "bots[3].name",
                "not a valid bot name",
            ),
            (
                minimal(bots=BOTS + '[[bots]]\nname = "c"\ncommand = "python \'x"\n'),
                "bots[3].command",
                "cannot parse the command",
            ),
            (
                minimal(bots=BOTS + '[[bots]]\nname = "c"\naddress = "not an address"\n'),
                "bots[3].address",
                "HOST:PORT",
            ),
            (
                minimal('format = "gauntlet"\nchallengers = ["nobody"]'),
                "tournament.challengers[0]",
                "no bot is named 'nobody'",
            ),
            (minimal('format = "gauntlet"'), "tournament.challengers", "needs challengers"),
            (
                minimal('challengers = ["random"]'),
                "tournament.challengers",
                "only used by format = 'gauntlet' or 'ladder'",
            ),
            (
                minimal('format = "ring"\ntable_size = 4'),
                "tournament.table_size",
                "4 seats but only 3 bots",
            ),
            (minimal('format = "ring"\ntable_size = 8'), "tournament.table_size", "3 to 7"),
            (minimal("table_size = 3"), "tournament.table_size", "only used by format = 'ring'"),
            (minimal("hands_per_match = -5"), "tournament.hands_per_match", "at least 1, got -5"),
            (minimal("hands_per_match = 2.5"), "tournament.hands_per_match", "whole number"),
            (minimal('duplicate = "yes"'), "tournament.duplicate", "true or false"),
            (minimal('format = "swiss"'), "tournament.format", "'swiss' is not one of"),
            (minimal("formt = 'ring'"), "tournament.formt", "did you mean 'format'"),
            (minimal(extra="[timeouts]\naction = 0"), "timeouts.action", "above 0"),
            (
                minimal(extra="[timeouts]\non_fault_limit = 'explode'"),
                "timeouts.on_fault_limit",
                "'sit_out'",
            ),
            (minimal(extra="[ratings]\nanchor = 'nobody'"), "ratings.anchor", "no bot is named"),
            (
                minimal(bots='[[bots]]\nname = "a"\nbuiltin = "random"\n'),
                "bots",
                "at least 2 bots, got 1",
            ),
            (minimal(bots=""), "bots", "missing"),
            (minimal('format = "ring"\nearly_stop = true'), "tournament.early_stop", "heads-up"),
        ],
    )
    def test_error_names_the_file_and_key(self, text, key, fragment):
        """The message starts ``t.toml: <key>:`` and says what is wrong."""
        error = error_of(text)
        assert error.key == key
        message = str(error)
        assert message.startswith(f"t.toml: {key}: "), message
        assert fragment in message
        assert "\n" not in message

    def test_bad_toml_gives_line_and_column(self):
        """tomllib's position reaches the user."""
        error = error_of('[tournament]\nname = "demo"\nrounds = = 2\n')
        assert error.key is None
        assert str(error).startswith("t.toml: invalid TOML: ")
        assert "line 3" in str(error) and "column" in str(error)

    def test_unreadable_file_names_the_path(self, tmp_path):
        """A missing file is a config error naming it, not a traceback."""
        missing = tmp_path / "nope.toml"
        with pytest.raises(TournamentConfigError, match=r"nope\.toml: cannot read"):
            load_tournament(missing)

    def test_load_names_the_file_in_errors(self, tmp_path):
        """Errors from a file carry its path."""
        path = tmp_path / "bad.toml"
        path.write_text(minimal(extra="[game]\nmax_draw = 9"))
        with pytest.raises(TournamentConfigError) as info:
            load_tournament(path)
        assert str(info.value).startswith(f"{path}: game.max_draw: ")

    def test_error_is_a_value_error(self):
        """Callers that catch ``ValueError`` catch it too."""
        assert issubclass(TournamentConfigError, ValueError)


class TestSafeValues:
    """Values that used to reach the file system or the wire unchecked (issue 7)."""

    @pytest.mark.parametrize(
        "name",
        ["..", ".", "/some/other/folder", "a/b", "../up", ".hidden", "a\\u0000b", "x" * 65, "a b"],
    )
    def test_tournament_name_must_be_a_safe_folder_name(self, name):
        """The name is a folder under ``output``: no path parts, no dot files, no NUL."""
        error = error_of(f'[tournament]\nname = "{name}"\n{BOTS}')
        assert error.key == "tournament.name"
        assert "folder name" in str(error)
        assert "\n" not in str(error) and "\x00" not in str(error)

    @pytest.mark.parametrize("name", ["demo", "course-2024_fall.v2", "A" * 64])
    def test_safe_names_load(self, name):
        """Letters, digits and ``._-`` not starting with a dot are fine."""
        assert name == parse(f'[tournament]\nname = "{name}"\n{BOTS}').name

    @pytest.mark.parametrize(
        ("key", "value"),
        [
            ("time_bank", "4294968"),  # above uint32 milliseconds
            ("time_bank", "1e308"),
            ("action", "1e308"),
            ("startup", "1e12"),
            ("hello", "86401"),
        ],
    )
    def test_clocks_are_bounded_by_what_the_protocol_carries(self, key, value):
        """Seconds become uint32 milliseconds on the wire: a day is the most any clock takes."""
        error = error_of(minimal(extra=f"[timeouts]\n{key} = {value}"))
        assert error.key == f"timeouts.{key}"
        assert "at most 86400" in str(error)

    def test_hello_timeout_reaches_the_dealer(self):
        """``timeouts.hello`` is the dealer's Hello wait."""
        config = parse(minimal("seed = 1", "[timeouts]\nhello = 0.25"))
        assert 0.25 == config.match_settings(build_schedule(config)[0]).hello_timeout
