"""Duplicate dealing no bot can remember (issue 9 item 3; item 7's "remembers everything").

A duplicate match deals each deck once per rotation; with one freshly launched bot per
(seat, table) no process ever sees a deck twice, so a bot that remembers every card it
was dealt never knows its opponent's cards. Sharing files between the seats (``$HOME``,
``$TMPDIR``, ``/tmp``, ``/dev/shm``, the working folder) is only closed from L1 on.
The same processes at every table (``run_match``'s duplicate, for bots given by
address) show that the bot does find them when it can.
"""

from __future__ import annotations

import pytest
import trio

from arena.dealer import (
    LaunchedBot,
    MatchSettings,
    resolve_sandbox,
    run_duplicate_match,
    run_match,
)
from arena.engine import GameConfig

pytestmark = pytest.mark.timeout(180)

SETTINGS = MatchSettings(config=GameConfig(), hands=16, seed=9, duplicate=True, action_timeout=3.0)


async def _play(tools, tmp_path, token, mode: str, sandbox: str, *, shared: bool):
    """Play a heads-up duplicate match of remember_everything bots; their verdict lists."""
    n = 2
    names = [[f"s{seat}t{table}" for seat in range(n)] for table in range(n)]
    if shared:
        names = [names[0]] * n
    bots = {
        name: LaunchedBot(
            name,
            tools.bot_command("remember_everything.py", token, mode),
            log_dir=tmp_path / "logs",
            workdir=tmp_path / "seats" / name,
            sandbox=sandbox,
            startup_timeout=30,
        )
        for row in names
        for name in row
    }
    for name in bots:
        (tmp_path / "seats" / name).mkdir(parents=True, exist_ok=True)
    async with trio.open_nursery() as nursery:
        try:
            async with trio.open_nursery() as starters:
                for bot in bots.values():
                    starters.start_soon(bot.start, nursery)
            tables = [[bots[name] for name in row] for row in names]
            if shared:
                result = await run_match(tables[0], SETTINGS)
            else:
                result = await run_duplicate_match(tables, SETTINGS)
        finally:
            with trio.CancelScope(shield=True):
                for bot in bots.values():
                    await bot.aclose()
    verdicts = {name: tools.verdicts(bot.stderr_log) for name, bot in bots.items()}
    return result, verdicts


def _knew(verdicts) -> list[str]:
    return [v for seen in verdicts.values() for v in seen if v.startswith("knew ")]


def _dealt(verdicts) -> bool:
    return all(any(v.startswith("dealt ") for v in seen) for seen in verdicts.values())


@pytest.mark.trio
async def test_i9_rotations_in_separate_processes_share_no_memory(tools, tmp_path, token):
    """L0 and up: one process per (seat, table), memory only: the bot never knows (item 3)."""
    tools.need_layer("L0")
    result, verdicts = await _play(tools, tmp_path, token, "memory", "L0", shared=False)
    assert result.duplicate_isolated
    assert result.hands_played == SETTINGS.hands and [] == result.faults
    assert _dealt(verdicts), verdicts
    assert [] == _knew(verdicts)


@pytest.mark.trio
async def test_i9_rotations_under_the_sandbox_share_no_files(tools, tmp_path, token):
    """Under the default sandbox (auto), a bot that writes every deal to every place it can
    write and reads them all back before each bet never knows its opponent's cards."""
    layer = resolve_sandbox("auto")
    if layer in ("off", "L0"):
        pytest.skip(
            f"sandbox auto is {layer} here: seats share /tmp and $HOME below L1, so the "
            "shared-files part of duplicate isolation needs L1 (bubblewrap)"
        )
    result, verdicts = await _play(tools, tmp_path, token, "files", "auto", shared=False)
    assert result.duplicate_isolated
    assert result.hands_played == SETTINGS.hands and [] == result.faults
    assert _dealt(verdicts), verdicts
    wrote = {v for seen in verdicts.values() for v in seen if v.startswith("wrote ")}
    assert wrote, "the bot should have found somewhere to write"
    assert [] == _knew(verdicts), (layer, verdicts)


@pytest.mark.trio
async def test_i9_the_same_processes_at_every_table_are_caught_remembering(tools, tmp_path, token):
    """The weaker guarantee (bots given by address): the same process sees both rotations,
    and the remembering bot does know its opponent's cards: the test above can fail."""
    tools.need_layer("L0")
    result, verdicts = await _play(tools, tmp_path, token, "memory", "L0", shared=True)
    assert not result.duplicate_isolated
    assert _knew(verdicts)
