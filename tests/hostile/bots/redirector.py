"""Tries to make the dealer dial a socket outside its sandbox (issue 19 item 3).

``argv[2]`` is the mode, ``argv[3]`` an outside socket's host path:

* ``symlink``: its ``bot.sock`` is a symbolic link to the outside socket, never a socket;
* ``hardlink``: a hard link to the outside socket (across mounts: EXDEV at L1+), and if
  that fails a symbolic link;
* ``swap``: serves, and once its health check was answered swaps ``bot.sock`` for a
  symbolic link to the outside socket (the gRPC server keeps its listening socket);
* ``rebind``: serves, then a child process binds a new socket under ``bot.sock``.
"""

import os
import socket
import sys
import threading
import time

from _base import mark, report, serve

mark(sys.argv[1])
mode, outside = sys.argv[2], sys.argv[3]
path = os.environ["ARENA_BOT_ADDRESS"].removeprefix("unix:")


def plant_link() -> None:
    os.symlink(outside, path)
    report("planted symlink")


def swap_later() -> None:
    time.sleep(1.0)  # after the dealer's health check (the test waits for this line)
    os.rename(path, path + ".old")
    if mode == "swap":
        plant_link()
        return
    if os.fork() == 0:  # another process of the sandbox serves the name now
        server = socket.socket(socket.AF_UNIX)
        server.bind(path)
        server.listen()
        report("rebound")
        while True:
            server.accept()[0].close()
    report("forked")


if mode == "symlink":
    plant_link()
elif mode == "hardlink":
    try:
        os.link(outside, path)
        report("planted hardlink")
    except OSError as error:
        report(f"hardlink denied {error.errno}")
        plant_link()
else:
    threading.Thread(target=swap_later, daemon=True).start()
    serve()
while True:  # symlink / hardlink: never serve, only wait to be dialled through the link
    time.sleep(1)
