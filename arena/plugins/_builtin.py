"""The built-in plugins: bot drivers and rating systems, registered like any other plugin.

Each is an instance of a small class, registered under the name in
:data:`BUILTIN_PLUGINS` (the same names as arena's own ``arena.plugins`` entry
points), so a user can block one by name or replace it with a plugin of their own.
Each driver answers for one kind and hands the bot to
:func:`arena.tournament._drivers.open_builtin_bot`, the only code that opens
arena's own kinds.
"""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING

from arena.plugins.hookspecs import BotSpecLike, DriverContext, RatingSystem, hookimpl
from arena.ratings import builtin_rating_systems
from arena.tournament._drivers import open_builtin_bot

if TYPE_CHECKING:
    from arena.dealer import BotDriver


class _KindDriver:
    """Drives bots of one built-in ``kind``; leaves every other kind to other plugins."""

    kind = ""

    @hookimpl(trylast=True)
    def arena_make_driver(
        self, spec: BotSpecLike, context: DriverContext
    ) -> AbstractAsyncContextManager[BotDriver] | None:
        if spec.kind != self.kind:
            return None
        return open_builtin_bot(spec, context)


class PolicyDrivers(_KindDriver):
    """Kind ``builtin``: an in-process policy from :data:`arena.policies.BUILT_IN`."""

    kind = "builtin"


class AddressDrivers(_KindDriver):
    """Kind ``address``: a running bot dialled over gRPC at ``HOST:PORT`` or ``unix:PATH``."""

    kind = "address"


class CommandDrivers(_KindDriver):
    """Kind ``command``: a bot launched as a child process and played over gRPC.

    ``{python}`` in the command is the interpreter running arena; ``context.options``
    may set ``workdir`` (when the bot has none), ``memory_limit_mb`` and ``cpu_seconds``.
    """

    kind = "command"


class RatingSystems:
    """Elo and the batch fit from :func:`arena.ratings.builtin_rating_systems`."""

    @hookimpl(trylast=True)
    def arena_rating_systems(self) -> list[RatingSystem]:
        return list(builtin_rating_systems())


policy_drivers = PolicyDrivers()
address_drivers = AddressDrivers()
command_drivers = CommandDrivers()
rating_systems = RatingSystems()

BUILTIN_PLUGINS: dict[str, object] = {
    "arena-policy-drivers": policy_drivers,
    "arena-address-drivers": address_drivers,
    "arena-command-drivers": command_drivers,
    "arena-ratings": rating_systems,
}
"""Plugin name -> built-in plugin, in registration order."""
