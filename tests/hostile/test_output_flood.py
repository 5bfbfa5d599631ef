"""A bot that floods its stdout or stderr costs the arena nothing past the log's cap
(issue 19, the hostile audit's item 6: the arena read and dropped the flood as fast as
the bot wrote it, about a core for the whole match).

Structural checks only; ``scripts/bench_output_flood.py`` measures the arena's CPU.
"""

from __future__ import annotations

import pytest
import trio
import trio.testing

from arena.dealer import LaunchedBot, MatchSettings, run_match
from arena.engine import GameConfig
from arena.sandbox._process import _CHUNK, DRAIN_PAUSE, Log

pytestmark = [pytest.mark.trio, pytest.mark.timeout(90)]

CAP = 100_000


class _Flood(trio.abc.ReceiveStream):
    """A pipe that always holds another full chunk (a bot that never stops writing)."""

    def __init__(self, chunks: int) -> None:
        self.left = chunks

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        await trio.lowlevel.checkpoint()
        if self.left == 0:
            return b""
        self.left -= 1
        return b"x" * (max_bytes or _CHUNK)

    async def aclose(self) -> None:
        pass


@pytest.fixture
def mock_clock() -> trio.testing.MockClock:
    return trio.testing.MockClock(autojump_threshold=0)


async def test_i19_audit6_past_the_cap_one_chunk_a_pause(tmp_path, mock_clock):
    """Audit item 6: past the cap the log reads at most one chunk per DRAIN_PAUSE (it
    read all 1000 chunks at once), and the file stays capped."""
    log = Log(tmp_path / "out.log", CAP)
    flood = _Flood(1000)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(log.copy, flood)
        await trio.sleep(10 * DRAIN_PAUSE)
        read = log.read_bytes
        nursery.cancel_scope.cancel()
    assert read <= CAP + _CHUNK * 11, read
    assert read >= CAP  # the log itself still got its megabyte
    text = (tmp_path / "out.log").read_bytes()
    assert len(text) <= CAP + 100 and text.endswith(b"[arena: log truncated at 100000 bytes]\n")


def _bot(tools, tmp_path, token: str, *args: str, **options) -> LaunchedBot:
    options.setdefault("log_dir", tmp_path / "logs")
    options.setdefault("startup_timeout", 30)
    options.setdefault("log_limit_bytes", CAP)
    return LaunchedBot(f"flood-{token}", tools.bot_command("outflood.py", token, *args), **options)


async def test_i19_audit6_a_flooding_bot_blocks_and_still_plays(tools, tmp_path, token, layer):
    """Audit item 6: a bot flooding stdout from a thread, at each layer: the arena reads
    the cap and then one chunk per pause (it read everything), the log is capped, and the
    bot (its flood blocked in its own write) still plays its match."""
    flood = _bot(tools, tmp_path, token, sandbox=layer)
    quiet = _bot(tools, tmp_path, token + "q", "quiet", sandbox="L0")
    settings = MatchSettings(config=GameConfig(), hands=4, seed=1, action_timeout=5)
    async with trio.open_nursery() as nursery:
        try:
            started = trio.current_time()
            await flood.start(nursery)
            await quiet.start(nursery)
            stdout = flood._logs[0]
            with trio.move_on_after(20):
                while stdout.read_bytes < CAP:
                    await trio.sleep(0.05)
            result = await run_match([flood, quiet], settings)
            read, elapsed = stdout.read_bytes, trio.current_time() - started
            alive = flood.process.poll() is None
        finally:
            for bot in (flood, quiet):
                await bot.aclose()
    assert "flooding" in tools.verdicts(flood.stderr_log)
    assert read >= CAP
    # a bound the code guarantees (one read per pause past the cap), not a speed
    assert read <= CAP + _CHUNK * (2 + elapsed / DRAIN_PAUSE), (read, elapsed)
    assert alive and not [f for f in result.faults if f.seat == 0], result.faults
    text = flood.stdout_log.read_bytes()
    assert len(text) <= CAP + 100 and text.endswith(b"[arena: log truncated at 100000 bytes]\n")
