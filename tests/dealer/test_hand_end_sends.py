"""The HandEnd sends share one cancel scope per hand (issue 12 item 6): a seat whose send
hangs or breaks is sat out with its own fault, and every other seat still gets its
HandEnd and plays on."""

from __future__ import annotations

import trio
import trio.testing

from arena.dealer import MatchSettings, SeatBrokenError, run_match
from arena.engine import GameConfig
from arena.protocol import pb


class _Seat:
    """Checks or calls, stands pat; does its driver's ``on_hand_end`` ("hang" or "break")
    at the bot's first HandEnd; logs the kinds of the messages it was sent."""

    def __init__(self, driver: _Driver) -> None:
        self._answers: list[pb.BotMessage] = []
        self._driver = driver
        self._name = driver.name
        self._log = driver.log

    async def send(self, message: pb.DealerMessage) -> None:
        kind = message.WhichOneof("kind")
        if kind == "hand_end" and self._driver.on_hand_end is not None:
            misbehave, self._driver.on_hand_end = self._driver.on_hand_end, None
            if misbehave == "hang":
                await trio.sleep_forever()  # the bot stopped reading: gRPC's buffer is full
            raise SeatBrokenError("the bot hung up")
        self._log.append(f"{self._name}:{kind}")
        if kind == "match_start":
            hello = pb.Hello(name=self._name, protocol_version=message.match_start.protocol_version)
            self._answers.append(pb.BotMessage(hello=hello))
        elif kind == "decision":
            request = message.decision
            draw = request.phase == pb.PHASE_DRAW
            action = pb.Action(
                decision_id=request.decision_id,
                kind=pb.ACTION_KIND_DISCARD if draw else pb.ACTION_KIND_CALL,
            )
            self._answers.append(pb.BotMessage(action=action))

    async def receive(self) -> pb.BotMessage:
        await trio.lowlevel.checkpoint()
        return self._answers.pop(0)

    async def aclose(self) -> None:
        return None


class _Driver:
    """One bot; it misbehaves once (its seat reconnects afterwards and plays on)."""

    def __init__(self, name: str, log: list[str], on_hand_end: str | None = None) -> None:
        self.name = name
        self.log = log
        self.on_hand_end = on_hand_end

    async def connect(self) -> _Seat:
        return _Seat(self)

    async def aclose(self) -> None:
        return None


def _play(on_hand_end: str) -> tuple[object, list[str]]:
    log: list[str] = []
    drivers = [_Driver("a", log, on_hand_end), _Driver("b", log), _Driver("c", log)]
    settings = MatchSettings(config=GameConfig(), hands=3, seed=4, action_timeout=2.0)

    async def main():
        return await run_match(drivers, settings)

    result = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    return result, log


def test_a_seat_whose_hand_end_send_hangs_is_sat_out_and_the_others_get_theirs() -> None:
    """Seat 0 stops reading at the first HandEnd: it is cut (too slow), seats 1 and 2
    get that HandEnd and every later one (issue 12 item 6)."""
    result, log = _play("hang")
    assert [(f.seat, f.hand_number, f.detail) for f in result.faults] == [
        (0, 1, "send failed: too slow")
    ]
    assert log.count("b:hand_end") == 3 and log.count("c:hand_end") == 3
    assert result.hands_played == 3
    assert sum(result.chips_won) == 0


def test_a_seat_whose_hand_end_send_breaks_is_sat_out_and_the_others_get_theirs() -> None:
    """Seat 0's stream breaks at the first HandEnd: a disconnect on record, and the
    seats after it still get their HandEnd (issue 12 item 6)."""
    result, log = _play("break")
    assert [(f.seat, f.hand_number, f.reason) for f in result.faults] == [(0, 1, "DISCONNECTED")]
    assert "the bot hung up" in result.faults[0].detail
    assert log.count("b:hand_end") == 3 and log.count("c:hand_end") == 3
    assert result.hands_played == 3
