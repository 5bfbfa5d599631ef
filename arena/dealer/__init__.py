"""The dealer: Trio tasks that run tables, ask seats for decisions under
deadlines, and launch and talk to bots.

It may import ``engine``, ``history``, ``policies``, ``protocol``, ``sandbox``, ``stats``,
``text``; never the SDK, tournaments or the command line.
"""

from arena.dealer._answers import MAX_STALE as MAX_STALE
from arena.dealer._bridge import call_soon as call_on_grpc_loop
from arena.dealer._bridge import run_on_loop as run_on_grpc_loop
from arena.dealer._bridge import trio_pusher as trio_pusher
from arena.dealer._deal import DEAL_KEY_ENV as DEAL_KEY_ENV
from arena.dealer._deal import DealKeyError as DealKeyError
from arena.dealer._deal import check_deal_key as check_deal_key
from arena.dealer._deal import new_deal_key as new_deal_key
from arena.dealer._duplicate import run_duplicate_match as run_duplicate_match
from arena.dealer._duplicate import run_match as run_match
from arena.dealer._grpc import BotStartError as BotStartError
from arena.dealer._grpc import GrpcBot as GrpcBot
from arena.dealer._grpc import GrpcConnection as GrpcConnection
from arena.dealer._grpc import MessageGate as MessageGate
from arena.dealer._grpc import StreamOwner as StreamOwner
from arena.dealer._grpc import wait_healthy as wait_healthy
from arena.dealer._launch import LaunchedBot as LaunchedBot
from arena.dealer._open import driver_from_spec as driver_from_spec
from arena.dealer._open import open_bot as open_bot
from arena.dealer._records import MatchRecorder as MatchRecorder
from arena.dealer._records import SeatSummary as SeatSummary
from arena.dealer._records import seat_summaries as seat_summaries
from arena.dealer._records import summarize as summarize
from arena.dealer._seat import BotDriver as BotDriver
from arena.dealer._seat import LocalBot as LocalBot
from arena.dealer._seat import LocalConnection as LocalConnection
from arena.dealer._seat import MalformedStreamError as MalformedStreamError
from arena.dealer._seat import RateLimitedError as RateLimitedError
from arena.dealer._seat import SeatBrokenError as SeatBrokenError
from arena.dealer._seat import SeatConnection as SeatConnection
from arena.dealer._seat import policy_driver as policy_driver
from arena.dealer._settings import ACTION_TIMEOUT as ACTION_TIMEOUT
from arena.dealer._settings import CPU_BACKSTOP_FACTOR as CPU_BACKSTOP_FACTOR
from arena.dealer._settings import CPU_BACKSTOP_FLOOR as CPU_BACKSTOP_FLOOR
from arena.dealer._settings import HANDS_PER_MATCH as HANDS_PER_MATCH
from arena.dealer._settings import HELLO_TIMEOUT as HELLO_TIMEOUT
from arena.dealer._settings import STARTUP_TIMEOUT as STARTUP_TIMEOUT
from arena.dealer._settings import WALL_BUDGET as WALL_BUDGET
from arena.dealer._settings import FaultRecord as FaultRecord
from arena.dealer._settings import MatchResult as MatchResult
from arena.dealer._settings import MatchSettings as MatchSettings
from arena.dealer._settings import OnFaultLimit as OnFaultLimit
from arena.dealer._settings import with_seed as with_seed
from arena.sandbox import SANDBOX_CHOICES as SANDBOX_CHOICES
from arena.sandbox import BotLimits as BotLimits
from arena.sandbox import BuildFailed as BuildFailed
from arena.sandbox import BuildLimits as BuildLimits
from arena.sandbox import LayerCheck as LayerCheck
from arena.sandbox import SandboxError as SandboxError
from arena.sandbox import build_layer as build_layer
from arena.sandbox import check_layers as check_layers
from arena.sandbox import find_special_file as find_special_file
from arena.sandbox import resolve_sandbox as resolve_sandbox
from arena.sandbox import run_build as run_build
from arena.sandbox import sandbox_of as sandbox_of

__all__ = [
    "ACTION_TIMEOUT",
    "CPU_BACKSTOP_FACTOR",
    "CPU_BACKSTOP_FLOOR",
    "DEAL_KEY_ENV",
    "HANDS_PER_MATCH",
    "HELLO_TIMEOUT",
    "MAX_STALE",
    "SANDBOX_CHOICES",
    "STARTUP_TIMEOUT",
    "WALL_BUDGET",
    "BotDriver",
    "BotLimits",
    "BotStartError",
    "BuildFailed",
    "BuildLimits",
    "DealKeyError",
    "FaultRecord",
    "GrpcBot",
    "GrpcConnection",
    "LaunchedBot",
    "LayerCheck",
    "LocalBot",
    "LocalConnection",
    "MalformedStreamError",
    "MatchRecorder",
    "MatchResult",
    "MatchSettings",
    "MessageGate",
    "OnFaultLimit",
    "RateLimitedError",
    "SandboxError",
    "SeatBrokenError",
    "SeatConnection",
    "SeatSummary",
    "StreamOwner",
    "build_layer",
    "call_on_grpc_loop",
    "check_deal_key",
    "check_layers",
    "driver_from_spec",
    "find_special_file",
    "new_deal_key",
    "open_bot",
    "policy_driver",
    "resolve_sandbox",
    "run_build",
    "run_duplicate_match",
    "run_match",
    "run_on_grpc_loop",
    "sandbox_of",
    "seat_summaries",
    "summarize",
    "trio_pusher",
    "wait_healthy",
    "with_seed",
]
