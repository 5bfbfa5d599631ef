"""The two errors a started bot can end in, shared by the sandbox (which starts it) and
the dealer (which plays it): defined here, below both, so the sandbox needs no dealer."""

from __future__ import annotations

from arena.protocol import pb


class SeatBrokenError(Exception):
    """The bot's side of a connection broke (crash, hang-up, oversize or garbage bytes).

    ``fault_reason`` is the FaultReason the seat's records give it.
    """

    fault_reason: int = pb.FAULT_REASON_DISCONNECTED


class BotStartError(SeatBrokenError):
    """A bot never became ready: its process exited, or it never answered the health check."""
