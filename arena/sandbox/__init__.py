"""The sandbox: a bot started as a supervised, isolated process tree (L0 rlimits and a
supervisor, L1 bubblewrap, L2 a leased uid and cgroups), its seat's socket folder and
private copies, builds of bot folders, and the sweep of what a killed arena left behind.

It may import ``arena.protocol`` and ``arena.text``; it never imports the dealer,
tournaments or the command line. The dealer (:mod:`arena.dealer._launch`) asks it for a
started process and its address, then speaks gRPC to it.
"""

from arena.sandbox._buildbox import BuildFailed as BuildFailed
from arena.sandbox._buildbox import BuildLimits as BuildLimits
from arena.sandbox._buildbox import build_layer as build_layer
from arena.sandbox._buildbox import run_build as run_build
from arena.sandbox._buildtree import find_special_file as find_special_file
from arena.sandbox._errors import BotStartError as BotStartError
from arena.sandbox._errors import SeatBrokenError as SeatBrokenError
from arena.sandbox._sandbox import SANDBOX_CHOICES as SANDBOX_CHOICES
from arena.sandbox._sandbox import BotLimits as BotLimits
from arena.sandbox._sandbox import LayerCheck as LayerCheck
from arena.sandbox._sandbox import SandboxError as SandboxError
from arena.sandbox._sandbox import check_layers as check_layers
from arena.sandbox._sandbox import resolve_sandbox as resolve_sandbox
from arena.sandbox._sandbox import sandbox_of as sandbox_of

__all__ = [
    "SANDBOX_CHOICES",
    "BotLimits",
    "BotStartError",
    "BuildFailed",
    "BuildLimits",
    "LayerCheck",
    "SandboxError",
    "SeatBrokenError",
    "build_layer",
    "check_layers",
    "find_special_file",
    "resolve_sandbox",
    "run_build",
    "sandbox_of",
]
