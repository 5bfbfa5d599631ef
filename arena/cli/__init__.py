"""The command line: ``arena demo``, ``arena replay``, ...

Each command lives in its own module and registers itself on :data:`cli`.

It may import every other package.
"""

from arena.cli._app import cli as cli
from arena.cli._app import main as main

__all__ = ["cli", "main"]
