"""Sends bytes that are not a BotMessage: as its Hello (argument "hello") or instead of
its 3rd action on each stream ("action")."""

import sys

import grpc
from _common import Calling

import arena.sdk._server as server
from arena.protocol import pb
from arena.sdk import run

GARBAGE = b"\xff\xfe not a protobuf message \xff\xff\xff"


class RawBytes(server._PlayServicer):
    async def Play(self, request_iterator, context):
        decisions = 0
        async for message in request_iterator:
            kind = message.WhichOneof("kind")
            reply = self._bot.handle(message)
            if kind == "match_start" and WHERE == "hello":
                yield GARBAGE
                continue
            if kind == "decision":
                decisions += 1
                if decisions == 3 and WHERE == "action":
                    yield GARBAGE
                    continue
            if reply is not None:
                yield reply.SerializeToString()
            if kind == "match_end":
                return


def add_raw_servicer(servicer, grpc_server):
    """Like the generated code, but the responses are bytes sent as they are."""
    handler = grpc.stream_stream_rpc_method_handler(
        servicer.Play,
        request_deserializer=pb.DealerMessage.FromString,
        response_serializer=lambda raw: raw,
    )
    grpc_server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler("arena.v1.Bot", {"Play": handler}),)
    )


if __name__ == "__main__":
    WHERE = sys.argv.pop(1)
    server._PlayServicer = RawBytes
    server.pb_grpc.add_BotServicer_to_server = add_raw_servicer
    run(Calling())
