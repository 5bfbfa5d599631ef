"""Allow `python -m arena`."""

from arena.cli import main

if __name__ == "__main__":
    main()
