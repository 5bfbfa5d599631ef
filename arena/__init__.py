"""arena: poker bots in any language play Five Card Draw, refereed by a dealer that never cheats."""

__version__ = "0.1.0"

__all__ = ["__version__", "play"]


def __getattr__(name: str) -> object:
    """``arena.play`` (issue 13 item 6), imported on first use: ``import arena`` stays light
    (no trio, no gRPC) for the command line's start-up and for ``arena.rl``."""
    if name == "play":
        from arena.cli._play import play

        return play
    raise AttributeError(f"module 'arena' has no attribute {name!r}")
