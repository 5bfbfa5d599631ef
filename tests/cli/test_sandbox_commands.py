"""`arena doctor`, `--sandbox` and what a match records of its sandbox (issue 9 item 1).

The layer checks are replaced here where a test needs a layer to be missing; the real
checks are the sandbox's own tests (tests/dealer/test_sandbox.py, tests/hostile/).
"""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

import arena.sandbox._sandbox as sandbox_module
from arena.cli import cli
from arena.cli._app import _register
from arena.dealer import LayerCheck, resolve_sandbox

_register()

pytestmark = pytest.mark.timeout(120)
CALLING_STATION = Path(__file__).resolve().parents[2] / "examples_bots" / "calling_station.py"


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


@pytest.fixture
def only_l0(monkeypatch):
    """A machine without bubblewrap and without root."""
    checks = (
        LayerCheck("L0", True, "exec-chain supervisor"),
        LayerCheck("L1", False, "sandbox L1 needs bubblewrap: bwrap is not on PATH"),
        LayerCheck("L2", False, "sandbox L2 needs root"),
    )
    monkeypatch.setattr(sandbox_module, "_checks", lambda: checks)


def test_doctor_lists_every_layer_and_what_auto_picks():
    result = run("doctor")
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    for layer in ("L0", "L1", "L2"):
        assert any(line.startswith(f"{layer}  ") for line in lines), result.output
    assert f"--sandbox auto picks {resolve_sandbox('auto')}" in result.output


def test_doctor_says_why_a_layer_is_missing_and_warns_about_the_records(only_l0):
    result = run("doctor")
    assert result.exit_code == 0, result.output
    assert "L1  NO   sandbox L1 needs bubblewrap" in result.output
    assert "--sandbox auto picks L0" in result.output
    assert "can read every file you can" in result.output
    required = run("doctor", "--require", "L1")
    assert required.exit_code == 1
    assert "Error: sandbox L1 needs bubblewrap" in required.output


def test_doctor_says_which_kernel_protections_work_here():
    """Issue 19 item 10: the seccomp filter, /proc/sys masked, the socket folder's cap and
    the endpoint check, each probed in a real sandbox (as root with bubblewrap: all yes)."""
    result = run("doctor")
    assert result.exit_code == 0, result.output
    lines = {line.split("  ")[0]: line for line in result.output.splitlines()}
    names = ("seccomp", "/proc/sys", "socket cap", "endpoint")
    layer = resolve_sandbox("auto")
    if layer == "L0":
        assert lines["kernel"].startswith("kernel  NO "), result.output
        return
    assert all(name in lines for name in names), result.output
    if os.geteuid() == 0 and platform.machine() == "x86_64":
        assert all(lines[name].startswith(f"{name}  yes") for name in names), result.output


def test_doctor_without_bubblewrap_says_the_kernel_protections_are_missing(only_l0):
    result = run("doctor")
    assert "kernel  NO   L0: no seccomp filter" in result.output, result.output


def test_a_sandbox_that_does_not_work_is_one_line_and_nothing_starts(only_l0, tmp_path):
    """Never a silent downgrade: asking for L2 where it does not work is an error."""
    out = tmp_path / "runs"
    result = run("match", "builtin:random", "builtin:random", "--sandbox", "L2", "--out", str(out))
    assert result.exit_code == 1
    assert "--sandbox L2: sandbox L2 needs root" in result.output
    assert "Traceback" not in result.output and not out.exists()


def test_a_duplicate_match_records_layers_hellos_and_one_process_per_rotation(tmp_path):
    """Issue 9 items 1, 3, 6: result.json names each seat's sandbox and Hello; each rotation
    ran its own process (its own log files)."""
    out = tmp_path / "runs"
    bot = f"station={sys.executable} {CALLING_STATION}"
    result = run("match", bot, "builtin:random", "--hands", "4", "--duplicate", "--seed", "3",
                 "--out", str(out))  # fmt: skip
    assert result.exit_code == 0, result.output
    (folder,) = out.iterdir()
    summary = json.loads((folder / "result.json").read_text())
    layers = {seat["name"]: seat["sandbox"] for seat in summary["seats"]}
    assert layers == {"station": resolve_sandbox("auto"), "random": "in-process"}
    assert {seat["hello"]["name"] for seat in summary["seats"]} == {"calling-station", "random"}
    logs = sorted(path.name for path in (folder / "bots").glob("*.stderr.log"))
    assert logs == ["station.2.stderr.log", "station.stderr.log"]
    assert summary["hands_played"] == 4


@pytest.mark.skipif(os.geteuid() != 0, reason="the warning is about running bots as root")
def test_a_bot_at_l0_as_root_is_warned_about(tmp_path):
    """Audit F6: at L0 as root a bot runs as root; the match says so before it plays."""
    bot = f"station={sys.executable} {CALLING_STATION}"
    result = run("match", bot, "builtin:random", "--hands", "2", "--sandbox", "L0",
                 "--out", str(tmp_path / "runs"))  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "station run as root" in result.output
    assert "can read" in result.output  # and the records are visible at L0
