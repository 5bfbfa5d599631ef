"""Test bots that dial in, written from the ``.proto`` alone (synchronous grpc, one
thread per stream), and the token/server set-up the dial-in tests share.

A :class:`DialStream` is one Play stream to the Arena service: ``send`` queues a
BotMessage, ``receive`` returns the next DealerMessage (or None at the stream's end),
``status`` is the call's final code. :func:`play_stream` answers a whole match on one
stream with a calling-station policy, so a test can seat a well-behaved remote bot in
one line and make the hostile ones by hand.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import grpc

from arena.protocol import pb
from arena.server._arena import ServerSettings
from arena.server._tokens import TokenStore

PLAY = "/arena.v1.Arena/Play"
_END = object()


def make_tokens(folder: Path, *names: str) -> tuple[Path, dict[str, str]]:
    """A token store in ``folder`` with one token per name; returns (path, name -> token)."""
    path = folder / "tokens.json"
    store = TokenStore(path)
    return path, {name: store.add(name) for name in names}


def settings(tokens: Path, **overrides: object) -> ServerSettings:
    """Loopback, a short reconnect window and keepalive: test-sized settings."""
    values: dict[str, object] = {
        "listen": "127.0.0.1:0",
        "tokens": tokens,
        "reconnect_window": 3.0,
        "keepalive": 1.0,
    }
    values.update(overrides)
    return ServerSettings(**values)  # type: ignore[arg-type]


class DialStream:
    """One Play stream to the Arena service at ``address`` (see the module)."""

    def __init__(
        self,
        address: str,
        token: str | None,
        *,
        resume: str = "",
        credentials: grpc.ChannelCredentials | None = None,
        metadata: Sequence[tuple[str, str]] = (),
    ) -> None:
        options = [("grpc.max_receive_message_length", 1 << 20)]
        if credentials is None:
            self.channel = grpc.insecure_channel(address, options=options)
        else:
            self.channel = grpc.secure_channel(address, credentials, options=options)
        meta = list(metadata)
        if token is not None:
            meta.append(("authorization", f"Bearer {token}"))
        if resume:
            meta.append(("arena-resume", resume))
        self._outbox: queue.Queue[object] = queue.Queue()
        play = self.channel.stream_stream(
            PLAY,
            request_serializer=lambda raw: raw,
            response_deserializer=pb.DealerMessage.FromString,
        )
        self.call = play(self._requests(), metadata=meta)

    def _requests(self) -> Iterator[bytes]:
        while True:
            item = self._outbox.get()
            if item is _END:
                return
            yield item  # type: ignore[misc]  # bytes by construction

    def send(self, message: pb.BotMessage) -> None:
        self._outbox.put(message.SerializeToString())

    def send_raw(self, raw: bytes) -> None:
        self._outbox.put(raw)

    def half_close(self) -> None:
        """End the bot's side of the stream (keep reading the arena's)."""
        self._outbox.put(_END)

    def receive(self) -> pb.DealerMessage | None:
        """The next message, or None once the stream ended (any status)."""
        try:
            return next(self.call)
        except (StopIteration, grpc.RpcError):
            self._outbox.put(_END)  # let the request thread end too, or code() may wait on it
            return None

    def status(self, timeout: float = 10.0) -> grpc.StatusCode | None:
        """The call's final status (None if it is still running after ``timeout``)."""
        finished = threading.Event()
        self.call.add_done_callback(lambda _: finished.set())
        if not finished.wait(timeout):
            return None
        return self.call.code()

    def close(self) -> None:
        self._outbox.put(_END)
        self.call.cancel()
        self.channel.close()


def answer(message: pb.DealerMessage) -> pb.BotMessage | None:
    """A calling station: Hello to MatchStart, call or check each decision, stand pat."""
    kind = message.WhichOneof("kind")
    if kind == "match_start":
        return pb.BotMessage(hello=pb.Hello(name="dialer", protocol_version=1))
    if kind != "decision":
        return None
    request = message.decision
    if request.phase == pb.PHASE_DRAW:
        kind_ = pb.ACTION_KIND_DISCARD
    elif request.legal.call_amount > 0:
        kind_ = pb.ACTION_KIND_CALL
    else:
        kind_ = pb.ACTION_KIND_CHECK
    return pb.BotMessage(action=pb.Action(decision_id=request.decision_id, kind=kind_))


def play_stream(stream: DialStream, *, stop_after: int | None = None) -> list[pb.DealerMessage]:
    """Answer every message on ``stream`` until it ends (or ``stop_after`` messages)."""
    seen: list[pb.DealerMessage] = []
    while stop_after is None or len(seen) < stop_after:
        message = stream.receive()
        if message is None:
            break
        seen.append(message)
        reply = answer(message)
        if reply is not None:
            stream.send(reply)
    return seen


class Dialer:
    """A well-behaved remote bot: ``tables`` streams, each reopened after its match."""

    def __init__(self, address: str, token: str, *, tables: int = 1, matches: int = 10**6) -> None:
        self.address = address
        self.token = token
        self.matches_left = matches
        self.played: list[list[pb.DealerMessage]] = []
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._streams: list[DialStream] = []
        self._threads = [
            threading.Thread(target=self._run, daemon=True, name=f"dialer-{i}")
            for i in range(tables)
        ]

    def start(self) -> Dialer:
        for thread in self._threads:
            thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                if self.matches_left <= 0:
                    return
                stream = DialStream(self.address, self.token)
                self._streams.append(stream)
            seen = play_stream(stream)
            stream.close()
            with self._lock:
                if any(m.WhichOneof("kind") == "match_end" for m in seen):
                    self.matches_left -= 1
                self.played.append(seen)
            if not seen:
                self._stop.wait(0.2)

    def stop(self) -> None:
        self._stop.set()
        with self._lock:
            for stream in self._streams:
                stream.close()
        for thread in self._threads:
            thread.join(timeout=5)
