"""The built-in plugins: bot drivers and rating systems, registered like any other plugin.

Each is an instance of a small class, registered under the name in
:data:`BUILTIN_PLUGINS` (the same names as arena's own ``arena.plugins`` entry
points), so a user can block one by name or replace it with a plugin of their own.
The layers they use are imported inside the hooks: loading the plugins costs nothing.
"""

from __future__ import annotations

import importlib
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import TYPE_CHECKING

from arena.plugins.hookspecs import BotSpecLike, DriverContext, RatingSystem, hookimpl

if TYPE_CHECKING:
    from arena.dealer import BotDriver


@asynccontextmanager
async def _open_policy(spec: BotSpecLike, seed: int | None) -> AsyncIterator[BotDriver]:
    """An in-process policy for the block; :class:`BotStartError` if there is no such policy."""
    from arena.dealer import BotStartError, policy_driver
    from arena.policies import BUILT_IN

    if spec.target not in BUILT_IN:
        raise BotStartError(
            f"{spec.name}: unknown built-in policy {spec.target!r}; choose from {', '.join(BUILT_IN)}"
        )
    driver = policy_driver(spec.name, spec.target, seed)
    try:
        yield driver
    finally:
        await driver.aclose()


class PolicyDrivers:
    """Kind ``builtin``: an in-process policy from :data:`arena.policies.BUILT_IN`."""

    @hookimpl(trylast=True)
    def arena_make_driver(
        self, spec: BotSpecLike, context: DriverContext
    ) -> AbstractAsyncContextManager[BotDriver] | None:
        if spec.kind != "builtin":
            return None
        return _open_policy(spec, context.seed)


class AddressDrivers:
    """Kind ``address``: a running bot dialled over gRPC at ``HOST:PORT`` or ``unix:PATH``."""

    @hookimpl(trylast=True)
    def arena_make_driver(
        self, spec: BotSpecLike, context: DriverContext
    ) -> AbstractAsyncContextManager[BotDriver] | None:
        if spec.kind != "address":
            return None
        from arena.dealer import open_bot

        return open_bot(spec.name, address=spec.target, startup_timeout=context.startup_timeout)


class CommandDrivers:
    """Kind ``command``: a bot launched as a child process and played over gRPC."""

    @hookimpl(trylast=True)
    def arena_make_driver(
        self, spec: BotSpecLike, context: DriverContext
    ) -> AbstractAsyncContextManager[BotDriver] | None:
        if spec.kind != "command":
            return None
        from arena.dealer import open_bot

        # BotSpec.argv replaces {python} with the running interpreter; a plain string
        # target is split like a shell would by the launcher
        command = getattr(spec, "argv", spec.target)
        options = dict(context.options or {})
        return open_bot(
            spec.name,
            command=command,
            startup_timeout=context.startup_timeout,
            log_dir=context.log_dir,
            workdir=options.get("workdir"),
            memory_limit_mb=options.get("memory_limit_mb"),
            cpu_seconds=options.get("cpu_seconds"),
        )


class RatingSystems:
    """Elo and the batch fit from :mod:`arena.ratings` (none while that is absent).

    ``arena.ratings`` provides them through ``builtin_rating_systems()``, a list of
    objects with ``name`` and ``rate(results)``.
    """

    @hookimpl(trylast=True)
    def arena_rating_systems(self) -> list[RatingSystem]:
        try:
            ratings = importlib.import_module("arena.ratings")
        except ModuleNotFoundError as error:
            if error.name not in ("arena.ratings", "arena"):
                raise  # arena.ratings exists but imports something missing: a real bug
            return []
        provide = getattr(ratings, "builtin_rating_systems", None)
        return list(provide()) if provide is not None else []


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
