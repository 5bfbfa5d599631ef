"""Writes as much as it can, and as many files as it can, into every folder it may write
(issue 19 item 4): its socket folder, current folder, $HOME, /tmp, /, /dev, /dev/shm.

``argv[2]``: MB to try per folder (in 8 MB files, under the 16 MB file-size cap), ``argv[3]``:
files to try. One line per folder: ``VERDICT <folder> bytes <n> <error> files <n> <error>``.
"""

import os
import signal
import sys

from _base import mark, report, serve

mark(sys.argv[1])
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
megabytes, files = int(sys.argv[2]), int(sys.argv[3])
socket_dir = os.path.dirname(os.environ["ARENA_BOT_ADDRESS"].removeprefix("unix:"))
chunk = b"x" * (1 << 20)


def fill_bytes(folder: str) -> tuple[int, str]:
    written, index = 0, 0
    try:
        while written < megabytes << 20:
            with open(os.path.join(folder, f"fill-{index}.bin"), "wb") as file:
                for _ in range(8):
                    written += file.write(chunk)
                    file.flush()
            index += 1
    except OSError as error:
        return written, type(error).__name__
    return written, "none"


def fill_files(folder: str) -> tuple[int, str]:
    made = 0
    try:
        while made < files:
            os.close(os.open(os.path.join(folder, f"f{made}"), os.O_CREAT | os.O_WRONLY, 0o600))
            made += 1
    except OSError as error:
        return made, type(error).__name__
    return made, "none"


seen = set()
for folder in (
    socket_dir,
    os.getcwd(),
    os.environ.get("HOME", "."),
    "/tmp",
    "/",
    "/dev",
    "/dev/shm",
):
    real = os.path.realpath(folder)
    if real in seen or not os.path.isdir(real):
        continue
    seen.add(real)
    written, why = fill_bytes(real)
    made, file_why = fill_files(real)
    for index in range(made):  # give the files back (a socket needs one); keep the bytes
        os.unlink(os.path.join(real, f"f{index}"))
    report(f"{real} bytes {written} {why} files {made} {file_why}")
serve()  # holding every byte it wrote while the test looks at the host's disk
