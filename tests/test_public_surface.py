"""The public surface of every ``arena`` package, pinned (trio style: a curated front door).

Each package ``__init__`` lists its public names in an explicit ``__all__``; the frozen sets
below are those lists. Adding, renaming or dropping a public name fails here until this file
says so, which makes a change to the public API a visible decision. The package-specific
checks (records exported, no layer above imported) stay beside each package's tests.

The same file guards the type checker's escape hatch: every ``# type: ignore`` under
``arena/`` names its error code and says why on the same line.
"""

from __future__ import annotations

import importlib
import re
import types
from pathlib import Path

import pytest

PUBLIC = {
    "arena.server": {
        "MAX_TABLES", "RECONNECT_WINDOW", "ArenaServer", "HeldSeat", "Identity", "LeasedSeat",
        "ListenError", "RemoteBot", "ServerError", "ServerSettings", "TokenStore",
        "TokenStoreError", "TokenVerifier", "is_loopback", "open_arena_server"
    },
    "arena.web": {
        "public_hand",
        "public_match",
        "spectator_events",
        "render_replay",
        "write_replay",
        "AddressError",
        "LiveApp",
        "LiveHub",
        "LiveServer",
        "is_loopback",
        "parse_address",
        "watching",
        "ReportError",
        "ReportRequest",
        "render_report",
        "write_report",
    },
    "arena.text": {"escape_untrusted"},
    "arena": {
        "__version__",
        "play",  # issue 13 item 6: lazy (module __getattr__), so importing arena stays light
    },
    "arena.engine": {
        "CALL", "CHECK", "DRAW_STARTED", "FOLD", "FULL_DECK", "JOKER", "MAX_CHIPS",
        "POSTDRAW_STARTED", "PREDRAW_STARTED", "PRIVATE_EVENTS", "STAND_PAT",
        "STANDARD_DECK", "Action", "AntePosted", "BetOrRaised", "BetRaise", "BlindKind",
        "BlindPlan", "BlindPosted", "BustPolicy", "Call", "Called", "Card",
        "CardParseError", "CardsDealtCount", "CardsDrawn", "category", "Check", "Checked",
        "ConfigError", "Deck", "describe", "Discard", "DrawCount", "EngineInvariantError",
        "evaluate", "evaluate5", "Event", "Fold", "Folded", "ForcedBets", "ForcedPost",
        "format_cards", "GameConfig", "Hand", "HandCategory", "HandDead", "HandMucked",
        "HandSettlement", "HandShown", "HoleCardsDealt", "IllegalActionError", "JokerMode",
        "LegalActions", "Opening", "parse_card", "parse_cards", "Phase", "Positions", "Pot",
        "PotAwarded", "qualifies_jacks_or_better", "Reason", "RoundStarted", "SeatInfo",
        "SeatState", "SeatView", "ShowdownReveal", "Structure", "StubReshuffled", "Table",
        "TableError", "TableStatistics", "UncalledReturned"
    },
    "arena.history": {
        "VARIANT_CODES", "dumps_phh", "dumps_phhs", "hand_to_phh", "load_phh", "PhhError",
        "PhhFormatError", "PhhHand", "player_order", "replay", "ReplayError"
    },
    "arena.stats": {
        "win_rate", "WinRate"
    },
    "arena.sandbox": {
        "BotLimits", "BotStartError", "BuildFailed", "BuildLimits", "LayerCheck",
        "SANDBOX_CHOICES", "SandboxError", "SeatBrokenError", "build_layer", "check_layers",
        "find_special_file", "resolve_sandbox", "run_build", "sandbox_of"
    },
    "arena.store": {
        "AlreadyRecorded", "BotFaults", "ClaimError", "MatchRow", "NOT_STARTED", "RatingRow",
        "RatingUpdate", "SeatResult", "SeatRow", "Store", "StoreError", "TournamentExists",
        "TournamentRow", "UnknownMatch"
    },
    "arena.ratings": {
        "DEFAULT_ANCHOR_RATING", "DEFAULT_K_FACTOR", "DEFAULT_START_RATING",
        "ELO_PER_NEPER", "MARGIN_SCALE_MBB", "MAX_K_FACTOR", "MAX_PRIOR_GAMES",
        "RATING_LIMIT", "BatchFit", "bot_win_rates", "bounded_rating", "builtin_rating_systems",
        "check_k_factor", "check_prior_games", "check_rating_setting", "chip_los_matrix",
        "ChipSprt", "EloSystem", "fit_matrix", "fit_ratings", "IncrementalElo", "los",
        "los_from_chips", "los_matrix", "margin_results", "MatchChips", "pair_units",
        "pair_win_rates", "PairResult", "pairwise_results", "Rating", "Sprt", "SprtStatus",
        "UnitSummary", "UnitTable"
    },
    "arena.protocol": {
        "PROTOCOL_VERSION", "action_from_message", "action_to_message", "answer",
        "cards_text", "config_from_message", "config_to_message", "decision",
        "decision_request", "event_from_message", "fault", "hand_end", "hand_start",
        "hello", "legal_to_message", "match_end", "match_start", "MessageFault", "MAX_ERROR_CHARS", "pb",
        "pb_grpc", "public_event", "public_history", "PublicHistory", "read_decision",
        "short_name"
    },
    "arena.sdk": {
        "ADDRESS_ENV", "Bot", "Decision", "DialError", "dial", "run", "serve"
    },
    "arena.policies": {
        "BUILT_IN", "CallingStation", "make_policy", "MonteCarloPolicy", "Policy",
        "PolicyBot", "RandomPolicy", "RuleBased", "sensible_discards"
    },
    "arena.rl": {"ACTION_NAMES", "DISCARD_BASE", "EXTRA_HINT", "MissingExtraError", "N_ACTIONS", "OBS_SIZE", "DrawGame", "discard_action", "env", "gym_env", "raw_env", "sorted_cards", "to_engine"},  # issue 13 item 1
    "arena.dealer": {
        "ACTION_TIMEOUT", "WALL_BUDGET", "HANDS_PER_MATCH", "HELLO_TIMEOUT", "MAX_STALE",
        "STARTUP_TIMEOUT", "BotDriver", "BotStartError", "driver_from_spec", "FaultRecord",
        "GrpcBot", "GrpcConnection", "LaunchedBot", "LocalBot", "LocalConnection",
        "MalformedStreamError", "MatchRecorder", "MatchResult", "MatchSettings",
        "OnFaultLimit", "open_bot", "policy_driver", "run_match", "seat_summaries",
        "CPU_BACKSTOP_FACTOR", "CPU_BACKSTOP_FLOOR", "run_duplicate_match", "sandbox_of",
        "SANDBOX_CHOICES", "BotLimits", "LayerCheck", "SandboxError", "check_layers",
        "resolve_sandbox",
        "SeatBrokenError", "SeatConnection", "SeatSummary", "summarize", "wait_healthy",
        "with_seed",
        "DEAL_KEY_ENV", "DealKeyError", "check_deal_key", "new_deal_key",  # issue 19 item 2
        "MessageGate", "RateLimitedError", "StreamOwner", "call_on_grpc_loop",
        "run_on_grpc_loop", "trio_pusher",
        # issue 13 audit: bot folders' builds in the bots' sandbox
        "BuildFailed", "BuildLimits", "build_layer", "run_build", "find_special_file"
    },
    "arena.tournament": {
        "NOT_STARTED", "AlreadyRecorded", "BotEntry", "BotSpec", "BotSpecError",
        "build_schedule", "compute_standings", "DriverContext", "Format", "game_type_of",
        "LeasableDriver", "load_tournament", "make_bot", "NoDriverError", "open_builtin_bot",
        "parse_bot_text", "parse_tournament", "Progress", "Ratings", "run_tournament",
        "schedule_statistics", "ScheduledMatch", "ScheduleStats", "seat_results",
        "Standing", "Standings", "Store", "StoreError", "Timeouts", "TournamentConfig",
        "TournamentConfigError", "TournamentError",
        # issue 12 item 1: the seam for where a match runs
        "Executor", "InProcessExecutor", "Job", "MatchOutcome", "MatchSpec", "match_spec",
        "play_match",
        # issue 13 item 4: bot folders (a bot.toml says how to build and run the bot)
        "MANIFEST", "BuildError", "Manifest", "ManifestError", "build_folder", "load_manifest",
        # issue 20 item 2: a tournament run as one object, and what it is given
        "Session", "SessionResult", "LivePage", "RemoteSeats"
    },
    "arena.executors": {
        "MAX_ATTEMPTS", "ProcessExecutor", "WORKER_COMMAND", "executor_for",
        # issue 12 item 3: Ray, and the executor a tournament file asks for
        "RayExecutor", "executor_of", "open_executor"
    },
    "arena.ladder": set(),  # issue 22: filled as the ladder lands
    "arena.cli": {
        "cli", "main"
    },
    "arena.plugins": {
        "BUILTIN_PLUGINS", "DISABLE_AUTOLOAD_ENV", "ENTRY_POINT_GROUP", "autoload_disabled",
        "BotSpecLike", "DriverContext", "get_plugin_manager", "hand_observer", "hookimpl",
        "hookspec", "NoDriverError", "open_driver", "PluginError", "rating_systems",
        "RatingSystem", "tournament_observers"
    },
}  # fmt: skip

ARENA = Path(__file__).resolve().parent.parent / "arena"


def _package(name: str) -> types.ModuleType:
    return importlib.import_module(name)


def test_every_package_is_pinned():
    """Each package directory under ``arena/`` (with an ``__init__``) has a frozen list here."""
    packages = {
        ".".join(("arena", *init.parent.relative_to(ARENA).parts)).rstrip(".")
        for init in ARENA.rglob("__init__.py")
        if "_generated" not in init.parts
    }
    assert sorted(packages) == sorted(PUBLIC)


@pytest.mark.parametrize("name", sorted(PUBLIC))
class TestPublicSurface:
    """One package's ``__all__`` against its frozen list."""

    def test_all_is_an_explicit_list(self, name):
        """``__all__`` is a plain list of strings written in the ``__init__``."""
        names = _package(name).__all__
        assert isinstance(names, list)
        assert all(isinstance(n, str) for n in names)

    def test_exported_names_are_exactly_the_frozen_ones(self, name):
        """``__all__`` lists exactly the pinned names."""
        assert sorted(PUBLIC[name]) == sorted(_package(name).__all__)

    def test_no_name_is_exported_twice(self, name):
        """``__all__`` lists each name once."""
        names = _package(name).__all__
        assert sorted(set(names)) == sorted(names)

    def test_every_exported_name_is_importable(self, name):
        """Each exported name is an attribute of the package."""
        package = _package(name)
        assert [n for n in package.__all__ if not hasattr(package, n)] == []

    def test_star_import_gives_exactly_all(self, name):
        """``from package import *`` binds exactly the names in ``__all__``."""
        namespace: dict[str, object] = {}
        exec(f"from {name} import *", namespace)
        namespace.pop("__builtins__")
        assert sorted(_package(name).__all__) == sorted(namespace)

    def test_nothing_public_looking_is_exported_by_accident(self, name):
        """Every public-looking name in the package is in ``__all__``, or is a public submodule.

        A helper imported into an ``__init__`` without an underscore would read as API.
        """
        package = _package(name)
        stray = [
            attr
            for attr, value in vars(package).items()
            if not attr.startswith("_")
            and attr not in package.__all__
            and not (isinstance(value, types.ModuleType) and value.__name__ == f"{name}.{attr}")
        ]
        assert stray == []

    def test_no_private_name_is_exported(self, name):
        """No ``_`` name (a private module or helper) is exported; ``__version__`` aside."""
        names = _package(name).__all__
        assert [n for n in names if n.startswith("_") and n != "__version__"] == []


# ``# type: ignore[code, code]  # why``: the codes in brackets, then a comment that says why.
_IGNORE = re.compile(r"#\s*type:\s*ignore")
_EXPLAINED = re.compile(r"#\s*type:\s*ignore\[[a-z0-9-]+(,\s*[a-z0-9-]+)*\]\s+#\s*\S")


def unexplained_ignores(text: str) -> list[int]:
    """Line numbers of ``# type: ignore`` comments without an error code and a reason."""
    return [
        number
        for number, line in enumerate(text.splitlines(), start=1)
        if _IGNORE.search(line) and not _EXPLAINED.search(line)
    ]


class TestTypeIgnores:
    """Every ``# type: ignore`` under ``arena/`` says which error and why."""

    def test_the_check_refuses_a_bare_ignore(self):
        """A bare ignore, one without a reason and one without a code are all caught."""
        text = "\n".join(
            [
                "x = f()  # type: ignore",
                "y = f()  # type: ignore[arg-type]",
                "z = f()  # type: ignore  # because",
                "w = f()  # type: ignore[arg-type, union-attr]  # the stub is wrong",
            ]
        )
        assert unexplained_ignores(text) == [1, 2, 3]

    def test_every_ignore_in_arena_has_a_code_and_a_reason(self):
        """No file under ``arena/`` (generated code aside) has an unexplained ignore."""
        found = [
            f"{path.relative_to(ARENA.parent)}:{number}"
            for path in sorted(ARENA.rglob("*.py"))
            if "_generated" not in path.parts
            for number in unexplained_ignores(path.read_text(encoding="utf-8"))
        ]
        assert found == []
