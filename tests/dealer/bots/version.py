"""Says Hello with protocol_version 999 (a major version this dealer does not speak)."""

from _common import Calling

from arena.sdk import run


class FromTheFuture(Calling):
    name = "from-the-future"

    def hello(self):
        message = super().hello()
        message.hello.protocol_version = 999
        return message


if __name__ == "__main__":
    run(FromTheFuture())
