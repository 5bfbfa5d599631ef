"""Hostile bots (issue 9 item 7): each a small script in bots/, started in a sandbox layer.

Every bot names its processes with a per-test marker (``/proc/PID/comm``), so a test
can tell whether anything the bot started is still alive, whatever pid namespace it ran
in. A layer this machine lacks is skipped with the reason ``arena doctor`` would print.
"""

from __future__ import annotations

import secrets
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from arena.dealer import check_layers

BOTS = Path(__file__).parent / "bots"


def bot_command(script: str, token: str, *args: str) -> list[str]:
    """The command that runs ``tests/hostile/bots/<script>`` with this interpreter."""
    return [sys.executable, str(BOTS / script), token, *args]


def need_layer(layer: str) -> None:
    """Skip the test (saying why) if ``layer`` does not work on this machine."""
    for check in check_layers():
        if check.layer == layer and not check.available:
            pytest.skip(f"sandbox {layer} is not available here: {check.detail}")


def marked(token: str) -> list[int]:
    """Pids of live (not zombie) processes named ``token``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if (entry / "comm").read_text().strip() != token:
                continue
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z":
            found.append(int(entry.name))
    return found


def verdicts(stderr_log: Path | None) -> list[str]:
    """The ``VERDICT ...`` lines a hostile bot wrote to its stderr."""
    if stderr_log is None or not stderr_log.exists():
        return []
    lines = stderr_log.read_text(errors="replace").splitlines()
    return [line.removeprefix("VERDICT ") for line in lines if line.startswith("VERDICT ")]


@pytest.fixture
def token() -> str:
    """A fresh process marker for one test."""
    return "hx" + secrets.token_hex(4)


@pytest.fixture(params=["L0", "L1", "L2"])
def layer(request: pytest.FixtureRequest) -> str:
    """Each sandbox layer in turn (skipped where it does not work)."""
    need_layer(request.param)
    return request.param


@pytest.fixture(params=["L1", "L2"])
def namespaced_layer(request: pytest.FixtureRequest) -> str:
    """Each layer with a network namespace of its own (L0 shares the host's, by design).

    A fixture, not a skip inside the test: a skip raised inside a Trio test loses its reason.
    """
    need_layer(request.param)
    return request.param


@pytest.fixture
def tools() -> SimpleNamespace:
    """The helpers above, for test modules (which cannot import this conftest)."""
    return SimpleNamespace(
        bot_command=bot_command, need_layer=need_layer, marked=marked, verdicts=verdicts
    )
