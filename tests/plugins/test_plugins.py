"""The plugin system: specs, built-ins as plugins, entry-point autoload, driver choice, errors."""

from __future__ import annotations

import contextlib
import shutil
import sys
import tomllib
from pathlib import Path

import pluggy
import pytest
import trio

import arena.plugins
from arena.cli._bots import BotSpec
from arena.dealer import BotStartError, LocalBot, MatchSettings, run_match
from arena.engine import GameConfig
from arena.plugins import (
    BUILTIN_PLUGINS,
    DISABLE_AUTOLOAD_ENV,
    DriverContext,
    NoDriverError,
    PluginError,
    get_plugin_manager,
    hand_observer,
    hookimpl,
    hookspecs,
    open_driver,
    rating_systems,
)

EXAMPLE = Path(__file__).parent / "example_plugin"
ROOT = Path(__file__).parents[2]

HOOKS_IN_ORDER = [
    "arena_make_driver",
    "arena_rating_systems",
    "arena_match_started",
    "arena_hand_finished",
    "arena_match_finished",
    "arena_tournament_finished",
]


def _install(site: Path, dist: str, package: str, entry_points: str) -> None:
    """Write a ``<dist>-0.1.dist-info`` folder into ``site``: installing without pip."""
    info = site / f"{dist}-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)
    (info / "top_level.txt").write_text(package + "\n")


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch):
    """No autoload switch from the developer's shell; no plugin module left imported."""
    monkeypatch.delenv(DISABLE_AUTOLOAD_ENV, raising=False)
    yield
    for name in ("arena_example_plugin", "arena_broken_plugin"):
        sys.modules.pop(name, None)


@pytest.fixture
def example_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The committed example plugin, installed under ``arena.plugins`` in a fresh site dir."""
    shutil.copytree(EXAMPLE / "arena_example_plugin", tmp_path / "arena_example_plugin")
    _install(
        tmp_path,
        "arena_example_plugin",
        "arena_example_plugin",
        "[arena.plugins]\nexample = arena_example_plugin\n",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _example_calls() -> list[tuple[str, dict]]:
    return sys.modules["arena_example_plugin"].CALLS


class TestExports:
    def test_public_names_are_exported_once(self) -> None:
        """``__all__`` lists every public name of the package exactly once."""
        public = {name for name in vars(arena.plugins) if not name.startswith("_")}
        public -= {"hookspecs"}  # the submodule, imported by name
        assert sorted(arena.plugins.__all__) == sorted(public)
        assert len(set(arena.plugins.__all__)) == len(arena.plugins.__all__)


class TestHookspecs:
    def test_specs_are_in_lifecycle_order_with_docstrings(self) -> None:
        """Every ``arena_`` spec is documented, and the module lists them as a run calls them."""
        specs = [name for name in vars(hookspecs) if name.startswith("arena_")]
        assert specs == HOOKS_IN_ORDER
        for name in specs:
            assert getattr(hookspecs, name).__doc__.strip()

    def test_who_answers(self) -> None:
        """The driver choice is firstresult; the rest are 1:N; nothing is historic."""
        pm = get_plugin_manager(autoload=False)
        for name in HOOKS_IN_ORDER:
            options = getattr(pm.hook, name).spec.opts
            assert options["firstresult"] == (name == "arena_make_driver")
            assert not options["historic"]


class TestBuiltins:
    def test_builtins_are_registered_as_plugins(self) -> None:
        """The drivers and ratings are ordinary plugins, listed by name even without autoload."""
        pm = get_plugin_manager(autoload=False)
        names = {name for name, _ in pm.list_name_plugin()}
        assert set(BUILTIN_PLUGINS) <= names
        for name, plugin in BUILTIN_PLUGINS.items():
            assert pm.get_plugin(name) is plugin

    def test_a_builtin_can_be_blocked_by_name(self) -> None:
        """Blocking ``arena-command-drivers`` leaves bots given by command without a driver."""
        pm = get_plugin_manager(autoload=False, block=["arena-command-drivers"])
        assert pm.is_blocked("arena-command-drivers")
        with pytest.raises(NoDriverError, match="kind 'command'"):
            open_driver(pm, BotSpec("bot", "command", "./bot"))

    def test_each_builtin_kind_has_a_driver(self) -> None:
        """builtin, address and command each get an async context manager from the hook."""
        pm = get_plugin_manager(autoload=False)
        for spec in (
            BotSpec("a", "builtin", "rule-based"),
            BotSpec("b", "address", "127.0.0.1:1"),
            BotSpec("c", "command", "./bot"),
        ):
            chosen = open_driver(pm, spec, DriverContext())
            assert hasattr(chosen, "__aenter__")
            chosen.__aenter__().close()  # never entered: nothing starts, nothing to stop

    def test_unknown_kind_is_a_clear_error(self) -> None:
        """A kind no plugin drives raises NoDriverError naming the bot and the kind."""
        pm = get_plugin_manager(autoload=False)
        with pytest.raises(NoDriverError, match=r"bot 'x'.*kind 'carrier-pigeon'"):
            open_driver(pm, BotSpec("x", "carrier-pigeon", "coo"))

    def test_unknown_builtin_policy_fails_to_start(self) -> None:
        """An unknown policy name is a BotStartError when the driver is entered."""
        pm = get_plugin_manager(autoload=False)

        async def enter() -> None:
            async with open_driver(pm, BotSpec("x", "builtin", "psychic")):
                pass

        with pytest.raises(BotStartError, match="unknown built-in policy 'psychic'"):
            trio.run(enter)

    def test_rating_systems_is_a_list(self) -> None:
        """The built-in ratings plugin answers with a list (empty until arena.ratings exists)."""
        pm = get_plugin_manager(autoload=False)
        answers = pm.hook.arena_rating_systems()
        assert all(isinstance(answer, list) for answer in answers)

    def test_builtin_entry_points_are_not_loaded_twice(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """arena declares its built-ins as entry points too; autoload skips them as registered."""
        lines = [f"{name} = {_entry_point_value(name)}" for name in BUILTIN_PLUGINS]
        _install(tmp_path, "arena_copy", "arena", "[arena.plugins]\n" + "\n".join(lines) + "\n")
        monkeypatch.syspath_prepend(str(tmp_path))
        pm = get_plugin_manager()
        assert [name for name, _ in pm.list_name_plugin()] == list(BUILTIN_PLUGINS)
        assert pm.list_plugin_distinfo() == []

    def test_pyproject_declares_the_builtins(self) -> None:
        """pyproject's ``arena.plugins`` table, once added, names exactly the built-ins."""
        pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
        table = pyproject["project"].get("entry-points", {}).get("arena.plugins")
        if table is None:
            pytest.skip('pyproject.toml has no [project.entry-points."arena.plugins"] yet')
        assert table == {name: _entry_point_value(name) for name in BUILTIN_PLUGINS}


def _entry_point_value(name: str) -> str:
    """``module:attribute`` of the built-in plugin registered as ``name``."""
    plugin = BUILTIN_PLUGINS[name]
    module = sys.modules[type(plugin).__module__]
    attribute = next(key for key, value in vars(module).items() if value is plugin)
    return f"{module.__name__}:{attribute}"


class TestAutoload:
    def test_installed_plugin_is_loaded_and_its_hooks_called(self, example_site: Path) -> None:
        """A plugin installed under ``arena.plugins`` is loaded and every observer reaches it."""
        pm = get_plugin_manager()
        assert pm.has_plugin("example")
        assert [dist.project_name for _, dist in pm.list_plugin_distinfo()] == [
            "arena_example_plugin"
        ]
        _example_calls().clear()
        settings = MatchSettings(config=GameConfig(), hands=1, seed=1, match_id="m1")
        pm.hook.arena_match_started(match_id="m1", names=["a", "b"], settings=settings)
        pm.hook.arena_hand_finished(match_id="m1", hand_number=1, hand=None, seats=[0, 1], names=[])
        pm.hook.arena_match_finished(match_id="m1", result="result")
        pm.hook.arena_tournament_finished(name="cup", standings=["a", "b"])
        assert [hook for hook, _ in _example_calls()] == HOOKS_IN_ORDER[2:]
        assert _example_calls()[0][1] == {"match_id": "m1", "names": ["a", "b"]}

    def test_autoload_false_skips_installed_plugins(self, example_site: Path) -> None:
        """``autoload=False`` loads the built-ins only."""
        pm = get_plugin_manager(autoload=False)
        assert not pm.has_plugin("example")
        assert "arena_example_plugin" not in sys.modules

    @pytest.mark.parametrize("value", ["1", "true"])
    def test_environment_variable_skips_installed_plugins(
        self, example_site: Path, monkeypatch: pytest.MonkeyPatch, value: str
    ) -> None:
        """``ARENA_DISABLE_PLUGIN_AUTOLOAD=1`` overrides ``autoload=True``."""
        monkeypatch.setenv(DISABLE_AUTOLOAD_ENV, value)
        pm = get_plugin_manager()
        assert not pm.has_plugin("example")
        assert pm.has_plugin("arena-policy-drivers")

    def test_installed_plugin_can_be_blocked(self, example_site: Path) -> None:
        """A plugin blocked by its entry-point name is not imported."""
        pm = get_plugin_manager(block=["example"])
        assert not pm.has_plugin("example")
        assert "arena_example_plugin" not in sys.modules

    def test_plugin_whose_import_raises_is_named(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """An installed plugin that fails to import gives a PluginError naming it, not a traceback."""
        package = tmp_path / "arena_broken_plugin"
        package.mkdir()
        (package / "__init__.py").write_text("raise RuntimeError('no config file')\n")
        _install(
            tmp_path,
            "arena_broken_plugin",
            "arena_broken_plugin",
            "[arena.plugins]\nbroken = arena_broken_plugin\n",
        )
        monkeypatch.syspath_prepend(str(tmp_path))
        with pytest.raises(PluginError) as caught:
            get_plugin_manager()
        assert caught.value.plugin == "broken"
        message = str(caught.value)
        assert "'broken'" in message
        assert "arena_broken_plugin 0.1" in message
        assert "RuntimeError: no config file" in message
        assert get_plugin_manager(block=["broken"]).is_blocked("broken")


class TestValidation:
    def test_misspelled_hook_fails_check_pending(self) -> None:
        """A hook name arena does not know is a PluginError naming it and the likely hook."""

        class Typo:
            @hookimpl
            def arena_match_startd(self, match_id):
                pass

        with pytest.raises(PluginError, match=r"'arena_match_startd'.*'arena_match_started'"):
            get_plugin_manager(autoload=False, extra=[Typo()])

    def test_unknown_argument_fails_at_registration(self) -> None:
        """An implementation asking for an argument its hook lacks is a PluginError."""

        class Greedy:
            @hookimpl
            def arena_match_finished(self, match_id, winner):
                pass

        with pytest.raises(PluginError, match="winner") as caught:
            get_plugin_manager(autoload=False, extra=[Greedy()])
        assert isinstance(caught.value.__cause__, pluggy.PluginValidationError)

    def test_optional_hooks_of_other_projects_are_allowed(self) -> None:
        """``optionalhook=True`` marks a hook arena may not know: check_pending lets it pass."""

        class Future:
            @hookimpl(optionalhook=True)
            def arena_season_finished(self):
                pass

        get_plugin_manager(autoload=False, extra=[Future()])


class TestDriverChoice:
    def test_third_party_kind_wins_for_that_kind_only(self, example_site: Path) -> None:
        """The example plugin drives kind ``example``; built-in kinds still go to the built-ins."""
        pm = get_plugin_manager()

        async def names_of(specs: list[BotSpec]) -> list[str]:
            async with contextlib.AsyncExitStack() as stack:
                drivers = [await stack.enter_async_context(open_driver(pm, s)) for s in specs]
                return [type(d.bot).__name__ for d in drivers]

        kinds = trio.run(
            names_of, [BotSpec("e", "example", ""), BotSpec("r", "builtin", "rule-based")]
        )
        assert kinds == ["AlwaysCall", "PolicyBot"]

    def test_a_plugin_may_take_over_a_builtin_kind(self) -> None:
        """Built-in drivers are trylast: any other plugin answering for ``builtin`` comes first."""
        taken = []

        class Override:
            @hookimpl
            def arena_make_driver(self, spec):
                if spec.kind != "builtin":
                    return None
                taken.append(spec.name)
                return contextlib.nullcontext(LocalBot(object(), name=spec.name))

        pm = get_plugin_manager(autoload=False, extra=[Override()])
        chosen = open_driver(pm, BotSpec("r", "builtin", "rule-based"))
        assert isinstance(chosen, contextlib.nullcontext)
        assert taken == ["r"]


class TestRatings:
    def test_first_plugin_called_wins_a_name(self) -> None:
        """Rating systems are collected from every plugin, one per name, a later plugin first."""

        class System:
            def __init__(self, name: str, owner: str) -> None:
                self.name = name
                self.owner = owner

            def rate(self, results):
                return {}

        class Mine:
            @hookimpl
            def arena_rating_systems(self):
                return [System("elo", "mine"), System("glicko", "mine")]

        pm = get_plugin_manager(autoload=False, extra=[Mine()])
        systems = rating_systems(pm)
        assert systems["elo"].owner == "mine"
        assert systems["glicko"].owner == "mine"
        assert isinstance(systems["glicko"], hookspecs.RatingSystem)


class TestMatchThroughPlugins:
    def test_match_with_hook_drivers_reports_each_hand(self, example_site: Path) -> None:
        """Drivers from the hook play a real match; ``hand_observer`` reaches every observer."""
        seen: list[tuple[str, int, list[str]]] = []

        class Recorder:
            @hookimpl
            def arena_hand_finished(self, match_id, hand_number, hand, names):
                assert hand.payoffs is not None
                seen.append((match_id, hand_number, list(names)))

        pm = get_plugin_manager(extra=[Recorder()])
        _example_calls().clear()
        settings = MatchSettings(config=GameConfig(), hands=6, seed=7, match_id="m2")
        specs = [
            BotSpec("caller", "builtin", "calling-station"),
            BotSpec("rules", "builtin", "rule-based"),
            BotSpec("example", "example", ""),
        ]

        async def play():
            context = DriverContext(seed=settings.seed)
            async with contextlib.AsyncExitStack() as stack:
                drivers = [
                    await stack.enter_async_context(open_driver(pm, spec, context))
                    for spec in specs
                ]
                pm.hook.arena_match_started(
                    match_id="m2", names=[d.name for d in drivers], settings=settings
                )
                result = await run_match(
                    drivers, settings, on_hand=hand_observer(pm, settings.match_id)
                )
                pm.hook.arena_match_finished(match_id="m2", result=result)
                return result

        result = trio.run(play)
        assert result.hands_played == 6
        assert sum(result.chips_won) == 0
        assert result.faults == []
        assert [number for _, number, _ in seen] == [1, 2, 3, 4, 5, 6]
        assert {match_id for match_id, _, _ in seen} == {"m2"}
        assert seen[0][2] == ["caller", "rules", "example"]
        hooks = [hook for hook, _ in _example_calls()]
        assert hooks == ["arena_match_started"] + ["arena_hand_finished"] * 6 + [
            "arena_match_finished"
        ]
        assert _example_calls()[-1][1]["result"] is result


def test_a_plugin_kind_is_usable_from_arena_match(example_site: Path, tmp_path: Path) -> None:
    """`plugin:KIND:TARGET` on the command line reaches the plugin that drives that kind."""
    from click.testing import CliRunner

    from arena.cli import cli
    from arena.cli._app import _register

    _register()
    result = CliRunner().invoke(
        cli,
        [
            "match",
            "plugin:example:",
            "builtin:random",
            "--hands",
            "4",
            "--seed",
            "1",
            "--out",
            str(tmp_path / "runs"),
        ],
    )
    assert 0 == result.exit_code, result.output
    assert "example-bot" in result.output
    unknown = CliRunner().invoke(
        cli, ["match", "plugin:nosuchkind:x", "builtin:random", "--out", str(tmp_path / "runs")]
    )
    assert 1 == unknown.exit_code
    assert "no plugin drives bots of kind 'nosuchkind'" in unknown.output


def test_a_plugin_kind_plays_in_a_tournament_file(example_site: Path, tmp_path: Path) -> None:
    """`plugin = "example"` in a [[bots]] entry reaches the example plugin's driver."""
    from click.testing import CliRunner

    from arena.cli import cli
    from arena.cli._app import _register

    _register()
    path = tmp_path / "t.toml"
    path.write_text(
        '[tournament]\nname = "p"\nhands_per_match = 4\noutput = "runs"\ndatabase = "a.db"\n'
        '[[bots]]\nname = "ex"\nplugin = "example"\n'
        '[[bots]]\nname = "r"\nbuiltin = "random"\n'
    )
    result = CliRunner().invoke(cli, ["tournament", "run", str(path)])
    assert 0 == result.exit_code, result.output
    assert "1/1 matches" in result.output
    without = tmp_path / "u.toml"
    without.write_text(path.read_text().replace('name = "p"', 'name = "q"'))
    # without its plugin the bot cannot start: it forfeits (issue 7), the note says why
    refused = CliRunner().invoke(cli, ["tournament", "run", str(without), "--no-plugins"])
    assert 3 == refused.exit_code, refused.output  # matches left not started
    words = " ".join(refused.output.split())  # the console wraps at 80 columns
    assert "no plugin drives bots of kind 'example'" in words
    assert "1 not started" in words
