"""What a duplicate instance's own copy of its folder costs (issue 19 item 1).

For folders of 1, 64 and 256 MB (one file of that size, plus 200 small files), times
:meth:`FolderCopy.create` (as root: into a tmpfs of its own) against reading the same
bytes once (``cat`` > /dev/null, warm) in the same run, and prints ms per MB and the
ratio. Run as root for the tmpfs; without root the copy goes to the temporary folder's
disk. No traffic, nothing left behind.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from arena.sandbox._botcopy import FolderCopy


def _folder(mb: int) -> Path:
    folder = Path(tempfile.mkdtemp(prefix="bench-copy-"))
    with open(folder / "model.bin", "wb") as out:
        for _ in range(mb):
            out.write(os.urandom(1 << 20))
    for i in range(200):
        (folder / f"f{i}.py").write_text("x = 1\n" * 50)
    return folder


def _read(folder: Path) -> float:
    start = time.perf_counter()
    for path in folder.iterdir():
        with open(path, "rb") as file:
            while file.read(1 << 20):
                pass
    return time.perf_counter() - start


def _copy(folder: Path) -> float:
    start = time.perf_counter()
    copy = FolderCopy.create("bench", [str(folder)], [])
    took = time.perf_counter() - start
    copy.release()
    return took


def main() -> None:
    print(f"as root: {os.geteuid() == 0} (tmpfs copy), temp: {tempfile.gettempdir()}")
    for mb in (1, 64, 256):
        folder = _folder(mb)
        try:
            reads, copies = [], []
            for _ in range(5):
                reads.append(_read(folder))
                copies.append(_copy(folder))
            read, copy = statistics.median(reads), statistics.median(copies)
            print(
                f"{mb:4d} MB: copy {copy * 1000:7.1f} ms ({copy * 1000 / mb:5.2f} ms/MB), "
                f"read {read * 1000:7.1f} ms, copy/read {copy / read:4.1f}x"
            )
        finally:
            shutil.rmtree(folder)


if __name__ == "__main__":
    main()
