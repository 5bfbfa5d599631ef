"""Says Hello with protocol_version 999 (a major version this dealer does not speak),
or with the version given as its argument (``version.py 0``: the field left unset)."""

import sys

from _common import Calling

from arena.sdk import run

VERSION = int(sys.argv.pop(1)) if len(sys.argv) > 1 and sys.argv[1].isdigit() else 999


class FromTheFuture(Calling):
    name = "from-the-future"

    def hello(self):
        message = super().hello()
        message.hello.protocol_version = VERSION
        return message


if __name__ == "__main__":
    run(FromTheFuture())
