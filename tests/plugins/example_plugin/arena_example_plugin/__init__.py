"""A tiny third-party arena plugin: it records what it observes and drives one bot kind.

Install it (``pip install tests/plugins/example_plugin``) and arena finds it through
the ``arena.plugins`` entry point in its ``pyproject.toml``; nothing else registers it.
Bots of kind ``example`` (target ignored) always check or call and stand pat.
"""

from __future__ import annotations

from contextlib import asynccontextmanager

from arena.plugins import hookimpl

CALLS: list[tuple[str, dict]] = []
"""(hook name, arguments) for every observer call, in order; tests clear it."""


@hookimpl
def arena_make_driver(spec, context):
    """Drive kind ``example`` only; every other kind is left to other plugins."""
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
