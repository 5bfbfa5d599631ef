"""Build the plugin manager once at start-up, and the few calls everyone makes through it.

:func:`get_plugin_manager` registers the hook specs, the built-in plugins, then every
plugin installed under the ``arena.plugins`` entry-point group (unless autoload is
off), then the caller's ``extra`` plugins, and checks that every hook implemented is
one arena knows. Whatever goes wrong with a plugin is a :class:`PluginError` naming it.
"""

from __future__ import annotations

import difflib
import importlib.metadata
import os
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any

import pluggy

from arena.plugins import hookspecs
from arena.plugins._builtin import BUILTIN_PLUGINS
from arena.plugins.hookspecs import PROJECT, BotSpecLike, DriverContext, RatingSystem
from arena.tournament._drivers import NoDriverError

if TYPE_CHECKING:
    from arena.dealer import BotDriver, MatchResult, MatchSettings
    from arena.engine import Hand

__all__ = [
    "DISABLE_AUTOLOAD_ENV",
    "ENTRY_POINT_GROUP",
    "NoDriverError",
    "PluginError",
    "autoload_disabled",
    "get_plugin_manager",
    "hand_observer",
    "open_driver",
    "rating_systems",
    "tournament_observers",
]

ENTRY_POINT_GROUP = "arena.plugins"
"""The entry-point group third-party plugins are installed under."""

DISABLE_AUTOLOAD_ENV = "ARENA_DISABLE_PLUGIN_AUTOLOAD"
"""Set to ``1`` to load no installed plugins (built-ins and ``extra`` still load)."""


class PluginError(Exception):
    """A plugin failed to load or does not fit arena's hooks; ``plugin`` is its name.

    The plugin's fault (or its installation's), not arena's: fix, upgrade, block or
    uninstall it, or set ``ARENA_DISABLE_PLUGIN_AUTOLOAD=1`` to run without plugins.
    The original error, if any, is the ``__cause__``.
    """

    def __init__(self, plugin: str, message: str) -> None:
        super().__init__(message)
        self.plugin = plugin


def autoload_disabled() -> bool:
    """Whether ``ARENA_DISABLE_PLUGIN_AUTOLOAD`` is set to something other than ``0``/empty."""
    value = os.environ.get(DISABLE_AUTOLOAD_ENV, "").strip().lower()
    return value not in ("", "0", "false", "no")


def get_plugin_manager(
    *, autoload: bool = True, extra: Iterable[object] = (), block: Iterable[str] = ()
) -> pluggy.PluginManager:
    """A manager with arena's hook specs and every plugin that should take part in this run.

    In order: the built-in plugins (:data:`BUILTIN_PLUGINS`); the plugins installed
    under the ``arena.plugins`` entry-point group, unless ``autoload`` is false or
    ``ARENA_DISABLE_PLUGIN_AUTOLOAD=1`` (for reproducible runs); then ``extra``
    plugin objects. Plugins named in ``block`` (built-in or installed) are skipped.
    Finally every hook implementation is checked against the specs.

    Raises :class:`PluginError` naming the plugin if one fails to import, takes an
    argument its hook does not have, or implements a hook arena does not know.
    """
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(hookspecs)
    for name in block:
        pm.set_blocked(name)
    for name, plugin in BUILTIN_PLUGINS.items():
        _register(pm, plugin, name)
    if autoload and not autoload_disabled():
        _load_installed(pm)
    for plugin in extra:
        _register(pm, plugin, None)
    _check_pending(pm)
    return pm


def _describe(plugin: object, name: str | None) -> str:
    return name or getattr(plugin, "__name__", None) or repr(plugin)


def _register(pm: pluggy.PluginManager, plugin: object, name: str | None) -> None:
    try:
        pm.register(plugin, name=name)  # None if blocked
    except pluggy.PluginValidationError as error:
        label = _describe(plugin, name)
        raise PluginError(label, f"plugin {label!r} does not fit arena's hooks: {error}") from error
    except ValueError as error:  # the name or the object is already registered
        label = _describe(plugin, name)
        raise PluginError(label, f"plugin {label!r} cannot be registered: {error}") from error


def _load_installed(pm: pluggy.PluginManager) -> None:
    """Load each ``arena.plugins`` entry point in turn, so a failure can name its plugin."""
    for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if pm.has_plugin(entry.name) or pm.is_blocked(entry.name):
            continue  # a built-in (arena declares its own) or one blocked by name
        dist = entry.dist
        source = f"{entry.value!r}" + (f" from {dist.name} {dist.version}" if dist else "")
        try:
            pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP, name=entry.name)
        except pluggy.PluginValidationError as error:
            raise PluginError(
                entry.name, f"plugin {entry.name!r} ({source}) does not fit arena's hooks: {error}"
            ) from error
        except Exception as error:
            raise PluginError(
                entry.name,
                f"plugin {entry.name!r} ({source}) failed to load: {type(error).__name__}: {error}",
            ) from error


def _check_pending(pm: pluggy.PluginManager) -> None:
    """Every hook implemented must have a spec: catch misspelled hook names at start-up."""
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as error:
        known = [name for name in vars(pm.hook) if not name.startswith("_")]
        known = [name for name in known if getattr(pm.hook, name).has_spec()]
        for hook_name, caller in vars(pm.hook).items():
            if hook_name.startswith("_") or caller.has_spec():
                continue
            for impl in caller.get_hookimpls():
                if impl.plugin is error.plugin and not impl.optionalhook:
                    close = difflib.get_close_matches(hook_name, known, n=1)
                    hint = f"; did you mean {close[0]!r}?" if close else ""
                    raise PluginError(
                        impl.plugin_name,
                        f"plugin {impl.plugin_name!r} implements {hook_name!r}, "
                        f"which is not an arena hook{hint}",
                    ) from error
        raise PluginError(str(pm.get_name(error.plugin)), str(error)) from error


# --- calls through the manager ------------------------------------------------


def open_driver(
    pm: pluggy.PluginManager, spec: BotSpecLike, context: DriverContext | None = None
) -> AbstractAsyncContextManager[BotDriver]:
    """The driver the plugins choose for ``spec``: use as ``async with open_driver(...) as d``.

    Raises :class:`NoDriverError` if no plugin drives bots of ``spec.kind``; entering
    the block may raise :class:`~arena.dealer.BotStartError`.
    """
    chosen = pm.hook.arena_make_driver(spec=spec, context=context or DriverContext())
    if chosen is None:
        raise NoDriverError(
            f"bot {spec.name!r}: no plugin drives bots of kind {spec.kind!r} "
            "(is the plugin installed, not blocked, and autoload on?)"
        )
    return chosen


def rating_systems(pm: pluggy.PluginManager) -> dict[str, RatingSystem]:
    """Every rating system the plugins provide, by name; the first plugin called wins a name."""
    systems: dict[str, RatingSystem] = {}
    for provided in pm.hook.arena_rating_systems():
        for system in provided or ():
            systems.setdefault(system.name, system)
    return systems


def hand_observer(
    pm: pluggy.PluginManager, match_id: str
) -> Callable[[int, Hand, Sequence[int], Sequence[str]], None]:
    """An ``on_hand`` callback for :func:`~arena.dealer.run_match` that calls
    ``arena_hand_finished`` for match ``match_id``."""
    hook = pm.hook.arena_hand_finished

    def on_hand(hand_number: int, hand: Hand, seats: Sequence[int], names: Sequence[str]) -> None:
        hook(match_id=match_id, hand_number=hand_number, hand=hand, seats=seats, names=names)

    return on_hand


def tournament_observers(pm: pluggy.PluginManager) -> dict[str, Callable[..., Any]]:
    """The plugin observers as :func:`arena.tournament.run_tournament`'s plain callbacks.

    Pass them as keyword arguments (``run_tournament(..., **tournament_observers(pm))``):
    the runner knows nothing of pluggy, and this is the one place hook names meet it.
    """
    hook = pm.hook

    def on_match_started(match_id: str, names: Sequence[str], settings: MatchSettings) -> None:
        hook.arena_match_started(match_id=match_id, names=names, settings=settings)

    def on_hand(
        match_id: str, hand_number: int, hand: Hand, seats: Sequence[int], names: Sequence[str]
    ) -> None:
        hook.arena_hand_finished(
            match_id=match_id, hand_number=hand_number, hand=hand, seats=seats, names=names
        )

    def on_match_finished(match_id: str, result: MatchResult) -> None:
        hook.arena_match_finished(match_id=match_id, result=result)

    return {
        "on_match_started": on_match_started,
        "on_hand": on_hand,
        "on_match_finished": on_match_finished,
    }
