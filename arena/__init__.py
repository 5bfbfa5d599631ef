"""arena: poker bots in any language play Five Card Draw, refereed by a dealer that never cheats."""

__version__ = "0.1.0"

__all__ = ["__version__"]
