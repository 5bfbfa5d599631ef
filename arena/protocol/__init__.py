"""The bot protocol: generated gRPC code and engine <-> message conversion.

``proto/arena/v1/arena.proto`` is the single source of truth; ``pb`` is its generated
message module and ``pb_grpc`` its service stubs. This package owns the wire: every
``DealerMessage`` is built by a function here (``match_start`` ... ``match_end``), the
public history is converted from the engine's seat views (``PublicHistory``), and bots
and policies read a ``DecisionRequest`` back through ``read_decision`` alone.

It may import ``engine`` and ``text``.
"""

from arena.protocol._convert import MAX_ERROR_CHARS as MAX_ERROR_CHARS
from arena.protocol._convert import PROTOCOL_VERSION as PROTOCOL_VERSION
from arena.protocol._convert import MessageFault as MessageFault
from arena.protocol._convert import action_from_message as action_from_message
from arena.protocol._convert import action_to_message as action_to_message
from arena.protocol._convert import config_from_message as config_from_message
from arena.protocol._convert import config_to_message as config_to_message
from arena.protocol._convert import short_name as short_name
from arena.protocol._decision import decision_request as decision_request
from arena.protocol._decision import legal_to_message as legal_to_message
from arena.protocol._decision import read_decision as read_decision
from arena.protocol._events import PublicHistory as PublicHistory
from arena.protocol._events import cards_text as cards_text
from arena.protocol._events import event_from_message as event_from_message
from arena.protocol._events import public_event as public_event
from arena.protocol._events import public_history as public_history
from arena.protocol._generated import arena_pb2 as pb
from arena.protocol._generated import arena_pb2_grpc as pb_grpc
from arena.protocol._messages import answer as answer
from arena.protocol._messages import decision as decision
from arena.protocol._messages import fault as fault
from arena.protocol._messages import hand_end as hand_end
from arena.protocol._messages import hand_start as hand_start
from arena.protocol._messages import hello as hello
from arena.protocol._messages import match_end as match_end
from arena.protocol._messages import match_start as match_start

__all__ = [
    "MAX_ERROR_CHARS",
    "PROTOCOL_VERSION",
    "MessageFault",
    "PublicHistory",
    "action_from_message",
    "action_to_message",
    "answer",
    "cards_text",
    "config_from_message",
    "config_to_message",
    "decision",
    "decision_request",
    "event_from_message",
    "fault",
    "hand_end",
    "hand_start",
    "hello",
    "legal_to_message",
    "match_end",
    "match_start",
    "pb",
    "pb_grpc",
    "public_event",
    "public_history",
    "read_decision",
    "short_name",
]
