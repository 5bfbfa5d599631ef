"""Plugins: pluggy hooks for bot drivers, rating systems and observers.

Write a plugin as a module of ``@hookimpl`` functions named after the specs in
:mod:`arena.plugins.hookspecs`, and install it under the ``arena.plugins`` entry-point
group::

    # arena_my_plugin/__init__.py
    from arena.plugins import hookimpl

    @hookimpl
    def arena_match_finished(match_id, result):
        print(match_id, result.chips_won)

    # pyproject.toml
    [project.entry-points."arena.plugins"]
    my-plugin = "arena_my_plugin"

The built-in drivers and rating systems are plugins too, registered by name
(:data:`BUILTIN_PLUGINS`). ``ARENA_DISABLE_PLUGIN_AUTOLOAD=1`` loads no installed ones.

It may import ``dealer``, ``engine``, ``ratings``, ``tournament``; never the command line.
"""

from arena.plugins._builtin import BUILTIN_PLUGINS as BUILTIN_PLUGINS
from arena.plugins._manager import DISABLE_AUTOLOAD_ENV as DISABLE_AUTOLOAD_ENV
from arena.plugins._manager import ENTRY_POINT_GROUP as ENTRY_POINT_GROUP
from arena.plugins._manager import NoDriverError as NoDriverError
from arena.plugins._manager import PluginError as PluginError
from arena.plugins._manager import autoload_disabled as autoload_disabled
from arena.plugins._manager import get_plugin_manager as get_plugin_manager
from arena.plugins._manager import hand_observer as hand_observer
from arena.plugins._manager import open_driver as open_driver
from arena.plugins._manager import rating_systems as rating_systems
from arena.plugins._manager import tournament_observers as tournament_observers
from arena.plugins.hookspecs import BotSpecLike as BotSpecLike
from arena.plugins.hookspecs import DriverContext as DriverContext
from arena.plugins.hookspecs import RatingSystem as RatingSystem
from arena.plugins.hookspecs import hookimpl as hookimpl
from arena.plugins.hookspecs import hookspec as hookspec

__all__ = [
    "BUILTIN_PLUGINS",
    "DISABLE_AUTOLOAD_ENV",
    "ENTRY_POINT_GROUP",
    "BotSpecLike",
    "DriverContext",
    "NoDriverError",
    "PluginError",
    "RatingSystem",
    "autoload_disabled",
    "get_plugin_manager",
    "hand_observer",
    "hookimpl",
    "hookspec",
    "open_driver",
    "rating_systems",
    "tournament_observers",
]
