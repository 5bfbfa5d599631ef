"""Sandbox layers (issue 9 item 1): choosing a layer, per-bot limits, the L0 exec chain."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest
import trio

from arena.dealer import (
    SANDBOX_CHOICES,
    BotLimits,
    LaunchedBot,
    LayerCheck,
    SandboxError,
    check_layers,
    resolve_sandbox,
)
from arena.sandbox import _sandbox
from arena.sandbox._endpoint import process_tree

BOTS = Path(__file__).parent / "bots"
pytestmark = pytest.mark.timeout(60)


class TestChoosing:
    def test_i9_choices_and_checks(self):
        """Every layer is probed once and says what it found or why it is missing."""
        assert SANDBOX_CHOICES == ("auto", "off", "L0", "L1", "L2")
        checks = check_layers()
        assert [c.layer for c in checks] == ["L0", "L1", "L2"]
        assert checks[0].available and all(c.detail for c in checks)
        assert check_layers() == checks

    def test_i9_auto_is_the_highest_working_layer_and_off_is_off(self, monkeypatch):
        fake = [
            LayerCheck("L0", True, "ok"),
            LayerCheck("L1", True, "ok"),
            LayerCheck("L2", False, "no root"),
        ]
        monkeypatch.setattr(_sandbox, "check_layers", lambda: fake)
        assert resolve_sandbox("auto") == "L1"
        assert resolve_sandbox("off") == "off"
        assert resolve_sandbox("L0") == "L0"

    def test_i9_a_missing_layer_is_an_error_never_a_downgrade(self, monkeypatch):
        why = "sandbox L1 needs bubblewrap: bwrap is not on PATH (apt-get install bubblewrap)"
        fake = [
            LayerCheck("L0", True, "ok"),
            LayerCheck("L1", False, why),
            LayerCheck("L2", False, "x"),
        ]
        monkeypatch.setattr(_sandbox, "check_layers", lambda: fake)
        with pytest.raises(SandboxError, match="bwrap is not on PATH"):
            resolve_sandbox("L1")
        with pytest.raises(ValueError, match="sandbox must be one of"):
            resolve_sandbox("L3")
        with pytest.raises(ValueError, match="sandbox must be one of"):
            LaunchedBot("b", "bot", sandbox="max")

    def test_i9_limits_are_checked(self):
        assert BotLimits().address_space_mb is not None
        assert BotLimits(address_space_mb=None).address_space_mb is None
        with pytest.raises(ValueError, match="memory_mb"):
            BotLimits(memory_mb=0)
        with pytest.raises(ValueError, match="address_space_mb"):
            BotLimits(address_space_mb=16)


@pytest.mark.trio
async def test_i9_l0_runs_the_bot_with_a_clean_environment_in_a_private_folder(tmp_path):
    """L0: the bot (the supervisor's child) sees only the clean environment plus its own
    ``env``, runs in a private 0700 folder removed at close, and has the rlimits."""
    os.environ["ARENA_TEST_SECRET"] = "leak"
    try:
        bot = LaunchedBot(
            "clean",
            [sys.executable, str(BOTS / "calling.py")],
            sandbox="L0",
            env={"ARENA_TEST_FLAG": "1"},
            log_dir=tmp_path,
            limits=BotLimits(open_files=200),
        )
        async with trio.open_nursery() as nursery:
            try:
                await bot.start(nursery)
                assert bot.sandbox_layer == "L0" and bot.records_visible is False
                child = process_tree(bot.process.pid)[1]
                environ = Path(f"/proc/{child}/environ").read_bytes().split(b"\0")
                names = {entry.split(b"=", 1)[0] for entry in environ if entry}
                assert b"ARENA_TEST_FLAG=1" in environ and b"ARENA_TEST_SECRET" not in names
                assert f"ARENA_PARENT_PID={os.getpid()}".encode() in environ
                cwd = os.readlink(f"/proc/{child}/cwd")
                assert stat.S_IMODE(os.stat(cwd).st_mode) == 0o700
                limits = Path(f"/proc/{child}/limits").read_text()
                assert any(
                    line.startswith("Max open files") and " 200 " in line
                    for line in limits.splitlines()
                )
                assert bot.cpu_seconds() is not None and bot.limit_breach() is None
            finally:
                await bot.aclose()
        assert not os.path.exists(cwd)
    finally:
        del os.environ["ARENA_TEST_SECRET"]
