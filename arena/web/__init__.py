"""Web views (beside the plugins): the hand replayer, the tournament report and
the live spectator page, all built from one server-side public view of each hand.

It may import ``engine``, ``history``, ``sandbox`` (a bot's log file name), ``store``,
``text`` and ``tournament``; never the dealer or the command line.
"""

from arena.web._hub import LiveHub as LiveHub
from arena.web._live import LiveApp as LiveApp
from arena.web._public import public_hand as public_hand
from arena.web._public import public_match as public_match
from arena.web._public import spectator_events as spectator_events
from arena.web._replay_page import render_replay as render_replay
from arena.web._replay_page import write_replay as write_replay
from arena.web._report import ReportError as ReportError
from arena.web._report import ReportRequest as ReportRequest
from arena.web._report import render_report as render_report
from arena.web._report import write_report as write_report
from arena.web._serve import AddressError as AddressError
from arena.web._serve import LiveServer as LiveServer
from arena.web._serve import is_loopback as is_loopback
from arena.web._serve import parse_address as parse_address
from arena.web._serve import watching as watching

__all__: list[str] = [
    "AddressError",
    "LiveApp",
    "LiveHub",
    "LiveServer",
    "ReportError",
    "ReportRequest",
    "is_loopback",
    "parse_address",
    "public_hand",
    "public_match",
    "render_replay",
    "render_report",
    "spectator_events",
    "watching",
    "write_replay",
    "write_report",
]
