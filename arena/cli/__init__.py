"""The command line (layer 5): ``arena demo``, ``arena replay``, ...

Each command lives in its own module and registers itself on :data:`cli`.
"""

from arena.cli._app import cli as cli
from arena.cli._app import main as main

__all__ = ["cli", "main"]
