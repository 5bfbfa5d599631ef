"""Shared test helpers live beside this file (``processes``): make them importable."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
