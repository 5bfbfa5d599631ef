"""The bot protocol (layer 2): generated gRPC code and engine <-> message conversion.

``proto/arena/v1/arena.proto`` is the single source of truth; ``pb`` is its generated
message module and ``pb_grpc`` its service stubs.
"""

from arena.protocol._convert import PROTOCOL_VERSION as PROTOCOL_VERSION
from arena.protocol._convert import MessageFault as MessageFault
from arena.protocol._convert import PublicHistory as PublicHistory
from arena.protocol._convert import action_from_message as action_from_message
from arena.protocol._convert import action_to_message as action_to_message
from arena.protocol._convert import cards_text as cards_text
from arena.protocol._convert import config_from_message as config_from_message
from arena.protocol._convert import config_to_message as config_to_message
from arena.protocol._convert import decision_request as decision_request
from arena.protocol._convert import legal_to_message as legal_to_message
from arena.protocol._convert import public_event as public_event
from arena.protocol._convert import public_history as public_history
from arena.protocol._convert import short_name as short_name
from arena.protocol._generated import arena_pb2 as pb
from arena.protocol._generated import arena_pb2_grpc as pb_grpc

__all__ = [
    "PROTOCOL_VERSION",
    "MessageFault",
    "PublicHistory",
    "action_from_message",
    "action_to_message",
    "cards_text",
    "config_from_message",
    "config_to_message",
    "decision_request",
    "legal_to_message",
    "pb",
    "pb_grpc",
    "public_event",
    "public_history",
    "short_name",
]
