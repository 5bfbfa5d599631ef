"""A tournament's progress in words (issue 21 item 1): a plain line per recorded match
(cutechess style, for a log file or CI) and the live view's status line (the matches
running now, an ETA, the slowest bots). Pure functions of the runner's
:class:`~arena.tournament.Progress`: no terminal, no clock but the one passed in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.text import escape_untrusted

if TYPE_CHECKING:
    from arena.tournament import Progress
    from arena.tournament._runner import RecordedMatch

SLOWEST = 3
"""How many of the slowest bots the status line names."""


def _name(name: str) -> str:
    return escape_untrusted(name, one_line=True)


def _seconds(seconds: float) -> str:
    """``12 s``, ``4 min 5 s``, ``2 h 3 min``."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"


def match_line(recorded: RecordedMatch, total: int) -> str:
    """``match 4/36 alice vs bob: alice +12.5 mbb/hand, 200 hands, 0 faults, 12 s``: the
    best seat's result; a match a bot did not start says who."""
    head = f"match {recorded.number}/{total} {' vs '.join(map(_name, recorded.names))}"
    took = "" if recorded.seconds is None else f", {_seconds(recorded.seconds)}"
    if not recorded.seats:
        who = ", ".join(map(_name, recorded.not_started)) or "a bot"
        return f"{head}: not started ({who} did not start){took}"
    best = max(recorded.seats, key=lambda seat: seat.mbb_per_hand)
    hands = max(seat.hands for seat in recorded.seats)
    faults = sum(seat.faults for seat in recorded.seats)
    return (
        f"{head}: {_name(best.name)} {best.mbb_per_hand:+.1f} mbb/hand, {hands} hands, "
        f"{faults} fault{'' if faults == 1 else 's'}{took}"
    )


def eta_seconds(progress: Progress) -> float | None:
    """The seconds left: the mean match so far times the matches left, shared by the
    matches running at once (None before a match is timed)."""
    if not progress.match_seconds:
        return None
    mean = sum(progress.match_seconds) / len(progress.match_seconds)
    return mean * max(progress.total - progress.done, 0) / max(len(progress.running), 1)


def slowest_bots(progress: Progress, count: int = SLOWEST) -> list[tuple[str, float]]:
    """The ``count`` bots with the longest mean match (seconds), slowest first."""
    means = [(name, sum(times) / len(times)) for name, times in progress.bot_seconds.items()]
    return sorted(means, key=lambda item: (-item[1], item[0]))[:count]


def status_line(progress: Progress) -> str:
    """``running: alice vs bob · ETA 3 min 5 s · slowest: carol 40 s/match, bob 12 s/match``
    (each part only when there is something to say)."""
    parts = []
    if progress.running:
        matches = [" vs ".join(map(_name, names)) for names in progress.running.values()]
        parts.append("running: " + ", ".join(matches))
    eta = eta_seconds(progress)
    if eta is not None and progress.done < progress.total:
        parts.append(f"ETA {_seconds(eta)}")
    slow = slowest_bots(progress)
    if slow:
        parts.append("slowest: " + ", ".join(f"{_name(n)} {_seconds(s)}/match" for n, s in slow))
    return " · ".join(parts)
