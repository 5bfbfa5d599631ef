"""A tiny third-party arena plugin: it records what it observes and drives one bot kind.

Install it (``pip install tests/plugins/example_plugin``) and arena finds it through
the ``arena.plugins`` entry point in its ``pyproject.toml``; nothing else registers it.

Adding a kind of bot is this one hook, nothing else in arena: ``arena_make_driver``
gets the bot record (``spec.name``, ``spec.kind``, ``spec.target``, as written
``plugin:example:TARGET`` on the command line or ``plugin = "example"``, ``target =
...`` in a tournament file) and a ``DriverContext`` (seed, log folder, start-up
timeout, options), and returns an unentered async context manager that yields a
ready ``BotDriver`` and releases the bot on exit; ``None`` for kinds it does not drive.
A sandboxed launcher, a dial-in server or a remote worker is the same shape: start or
reach the bot in ``__aenter__``, raise ``arena.dealer.BotStartError`` if it does not
come up, stop it in ``__aexit__``.

Bots of kind ``example`` (target ignored) always check or call and stand pat.
"""

from __future__ import annotations

from contextlib import asynccontextmanager

from arena.plugins import hookimpl

CALLS: list[tuple[str, dict]] = []
"""(hook name, arguments) for every observer call, in order; tests clear it."""


@hookimpl
def arena_make_driver(spec, context):
    """Drive kind ``example`` only; every other kind is left to other plugins.

    Called before play starts, so it may take its time; it must not start the bot
    yet (arena enters the returned manager when it is ready to hold the bot).
    """
    if spec.kind != "example":
        return None
    return _open_always_call(spec.name)


@asynccontextmanager
async def _open_always_call(name):
    from arena.dealer import LocalBot
    from arena.sdk import Bot

    class AlwaysCall(Bot):
        def decide(self, decision):
            return decision.stand_pat() if decision.is_draw else decision.check_or_call()

    bot = AlwaysCall()
    bot.name = name
    driver = LocalBot(bot, name=name)
    try:
        yield driver
    finally:
        await driver.aclose()


@hookimpl
def arena_match_started(match_id, names):
    CALLS.append(("arena_match_started", {"match_id": match_id, "names": list(names)}))


@hookimpl
def arena_hand_finished(match_id, hand_number):
    CALLS.append(("arena_hand_finished", {"match_id": match_id, "hand_number": hand_number}))


@hookimpl
def arena_match_finished(match_id, result):
    CALLS.append(("arena_match_finished", {"match_id": match_id, "result": result}))


@hookimpl
def arena_tournament_finished(name, standings):
    CALLS.append(("arena_tournament_finished", {"name": name, "standings": list(standings)}))
