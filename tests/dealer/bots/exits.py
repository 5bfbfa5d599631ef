"""Exits at once with an error on stderr, before it ever listens."""

import sys

print("exits bot: missing configuration file bot.toml", file=sys.stderr, flush=True)
sys.exit(3)
