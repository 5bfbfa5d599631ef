"""The Go and Java bots of ``arena new-bot`` against a hostile dealer (issue 24 item 3), as
tests/examples/test_cpp_hostile.py plays the C++ bots: cards that are no cards (a NUL
byte, empty, too long, unknown letters, a card twice, too many cards), a raise range that
makes no sense, an unknown phase, enum values and message kinds no copy of arena.proto
has, a fault with terminal controls, a message that is not UTF-8, and a decision after
MatchEnd. Each unknown card gets the safe legal answer (check or call; stand pat at the
draw), the bot stays up, prints nothing unescaped, and exits 0 on SIGTERM with no panic
(Go) or uncaught exception (Java) on its stderr. A launched bot is fed what the arena's
dealer sends, which may be a man in the middle, or a future protocol.

Each template is built once per session (tests/template_builds.py); skipped, with the
reason printed, only where the language's toolchain is missing.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from template_builds import built_bot, missing, run_command

from arena.protocol import pb

CRASH_WORDS = ("panic", "goroutine ", "Exception in thread", "Error:", "\tat ")


@pytest.fixture(scope="module", params=["go", "java"])
def hostile_bot(request) -> Path:
    """The built template folder of each language."""
    reason = missing(request.param)
    if reason is not None:
        print(f"tests/examples/test_go_java_hostile.py [{request.param}] skipped: {reason}")
        pytest.skip(reason)
    return built_bot(request.param)


GOOD = ["As", "Ad", "7c", "Kd", "2s"]  # a pair of aces: the template raises
NOT_CARDS = [
    ["\x00s", "Ad", "7c", "Kd", "2s"],  # a NUL rank
    ["As", "Ad", "7\x00", "Kd", "2s"],  # a NUL suit
    ["\x00\x00", "Ad", "7c", "Kd", "2s"],
    ["", "Ad", "7c", "Kd", "2s"],
    ["A", "Ad", "7c", "Kd", "2s"],
    ["Ask", "Ad", "7c", "Kd", "2s"],
    ["Xs", "Ad", "7c", "Kd", "2s"],
    ["Az", "Ad", "7c", "Kd", "2s"],
    ["as", "Ad", "7c", "Kd", "2s"],
    ["jk", "Ad", "7c", "Kd", "2s"],
    ["JK", "Ad", "7c", "Kd", "2s"],
    ["\u00c4", "Ad", "7c", "Kd", "2s"],  # two bytes of UTF-8 (one Java char), no card
    ["\u00c4s", "Ad", "7c", "Kd", "2s"],  # two Java chars, three bytes
    ["\x80", "Ad", "7c", "Kd", "2s"],
    ["\U0001f0a1", "Ad", "7c", "Kd", "2s"],  # the ace of spades emoji: two Java chars
    ["As", "As", "Ad", "Kd", "2s"],  # a card twice
    ["Jk", "Ad", "Jk", "Kd", "2s"],  # two jokers (a deck has one)
    [],
    ["As", "Ad"],
    [*GOOD, "3s"],  # six cards
    ["Jk"] * 100_000,  # a size no hand has (400 KB, under the 1 MiB limit)
]


def _decision(cards: list[str], phase: int = pb.PHASE_PREDRAW_BETTING, **legal) -> pb.DealerMessage:
    fields = dict(can_fold=True, call_amount=2, can_raise=True, min_raise_to=4, max_raise_to=8)
    fields.update(legal)
    return pb.DealerMessage(
        decision=pb.DecisionRequest(
            decision_id="d", phase=phase, hole_cards=cards, legal=pb.LegalActions(**fields)
        )
    )


MATCH_START = pb.DealerMessage(
    match_start=pb.MatchStart(
        match_id="m", seat=0, players=[pb.Player(seat=0, name="me"), pb.Player(seat=1, name="x")]
    )
)


class Dealer:
    """One Play stream to the bot, one message at a time (raw bytes when ``raw``)."""

    def __init__(self, channel: grpc.Channel, raw: bool = False) -> None:
        self._out: queue.Queue = queue.Queue()
        play = channel.stream_stream(
            "/arena.v1.Bot/Play",
            request_serializer=(lambda b: b) if raw else pb.DealerMessage.SerializeToString,
            response_deserializer=pb.BotMessage.FromString,
        )
        self.replies: Iterator[pb.BotMessage] = play(iter(self._out.get, None), timeout=60)

    def ask(self, message) -> pb.BotMessage:
        self._out.put(message)
        return next(self.replies)

    def send(self, message) -> None:
        self._out.put(message)

    def close(self) -> list[pb.BotMessage]:
        self._out.put(None)
        return list(self.replies)


def _answer(reply: pb.BotMessage) -> tuple[int, int, list[str]]:
    assert reply.WhichOneof("kind") == "action", reply
    return reply.action.kind, reply.action.amount, list(reply.action.cards)


class Served:
    """The bot on a unix socket and a channel to it."""

    def __init__(self, bot: subprocess.Popen, channel: grpc.Channel) -> None:
        self.bot = bot
        self.channel = channel
        self.stderr: str | None = None

    def stop(self) -> str:
        """SIGTERM: the bot must still run, exit 0 and report no crash; its stderr."""
        if self.stderr is None:
            assert self.bot.poll() is None, f"the bot died: {self.bot.communicate()[1]}"
            self.bot.send_signal(signal.SIGTERM)
            _, self.stderr = self.bot.communicate(timeout=60)
            assert self.bot.returncode == 0, self.stderr
            for word in CRASH_WORDS:
                assert word not in self.stderr, self.stderr
        return self.stderr


@pytest.fixture
def served(hostile_bot: Path, tmp_path: Path) -> Iterator[Served]:
    """The bot listening on a unix socket, stopped (and checked) on the way out."""
    address = f"unix:{tmp_path / 'bot.sock'}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    bot = subprocess.Popen(
        [*run_command(hostile_bot), "--address", address],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
        errors="backslashreplace",
        cwd=tmp_path,
    )
    try:
        options = [("grpc.max_send_message_length", -1)]
        with grpc.insecure_channel(address, options=options) as channel:
            grpc.channel_ready_future(channel).result(timeout=60)
            served = Served(bot, channel)
            yield served
        served.stop()
    finally:
        if bot.poll() is None:
            bot.kill()
            bot.communicate()


@pytest.mark.timeout(300)
def test_cards_that_are_no_cards_get_the_safe_answer(served) -> None:
    """Every hand the bot cannot read (a NUL byte, unknown letters, a card twice, not five
    cards) is answered with a check or call before the draw and after it, and a pat hand
    at the draw: never an index out of range, never a raise or a fold on cards it did not
    understand."""
    dealer = Dealer(served.channel)
    hello = dealer.ask(MATCH_START)
    assert hello.WhichOneof("kind") == "hello" and hello.hello.protocol_version == 1, hello
    assert _answer(dealer.ask(_decision(GOOD))) == (pb.ACTION_KIND_BET_RAISE, 4, [])
    for cards in NOT_CARDS:
        shown = repr(cards[:6])
        got = _answer(dealer.ask(_decision(cards)))
        assert got == (pb.ACTION_KIND_CALL, 0, []), shown
        got = _answer(dealer.ask(_decision(cards, call_amount=0)))
        assert got == (pb.ACTION_KIND_CHECK, 0, []), shown
        got = _answer(dealer.ask(_decision(cards, pb.PHASE_POSTDRAW_BETTING)))
        assert got == (pb.ACTION_KIND_CALL, 0, []), shown  # junk folds here; unknown calls
        got = _answer(dealer.ask(_decision(cards, pb.PHASE_DRAW, max_discard=5)))
        assert got == (pb.ACTION_KIND_DISCARD, 0, []), shown
    assert _answer(dealer.ask(_decision(GOOD, pb.PHASE_DRAW, max_discard=2))) == (
        pb.ACTION_KIND_DISCARD, 0, ["2s", "7c"],
    )  # fmt: skip
    assert dealer.close() == []


@pytest.mark.timeout(300)
def test_a_raise_range_phase_or_draw_that_makes_no_sense_gets_a_safe_answer(served) -> None:
    """A pair would raise to min_raise_to; a range that is empty, starts at no chips, a
    negative amount to call, or an unknown phase (a future protocol) gets a call (a check
    when free) instead of an amount the dealer would take as a fault. A draw of at most
    2^32 - 1 cards (a uint32 Java reads as -1) throws only cards the bot holds."""
    dealer = Dealer(served.channel)
    dealer.ask(MATCH_START)
    for legal in (
        dict(min_raise_to=10, max_raise_to=4),
        dict(min_raise_to=0, max_raise_to=0),
        dict(min_raise_to=-5, max_raise_to=8),
        dict(call_amount=-1),
    ):
        assert _answer(dealer.ask(_decision(GOOD, **legal))) == (pb.ACTION_KIND_CALL, 0, []), legal
    assert _answer(dealer.ask(_decision(GOOD, phase=99))) == (pb.ACTION_KIND_CALL, 0, [])
    assert _answer(dealer.ask(_decision(GOOD, phase=99, call_amount=0))) == (
        pb.ACTION_KIND_CHECK, 0, [],
    )  # fmt: skip
    kind, amount, cards = _answer(dealer.ask(_decision(GOOD, pb.PHASE_DRAW, max_discard=2**32 - 1)))
    assert kind == pb.ACTION_KIND_DISCARD and amount == 0, (kind, amount)
    assert set(cards) <= {"7c", "Kd", "2s"} and len(set(cards)) == len(cards), cards
    assert _answer(dealer.ask(_decision(GOOD, pb.PHASE_DRAW, max_discard=0))) == (
        pb.ACTION_KIND_DISCARD, 0, [],
    )  # fmt: skip
    assert dealer.close() == []


# A DealerMessage whose only field is number 95 (no kind this copy of arena.proto knows):
# tag 95 << 3 | 2 (length-delimited), three bytes.
UNKNOWN_KIND = b"\xfa\x05\x03abc"


@pytest.mark.timeout(300)
def test_unknown_kinds_and_enum_values_and_a_hostile_fault_are_ignored_or_escaped(served) -> None:
    """A message of a kind a later protocol may add is not answered; a Fault of an unknown
    reason, whose applied action is of an unknown kind, with terminal controls in its
    detail, is printed escaped; a HandEnd full of junk is ignored; the next decision is
    answered as usual."""
    dealer = Dealer(served.channel, raw=True)
    assert dealer.ask(MATCH_START.SerializeToString()).WhichOneof("kind") == "hello"
    dealer.send(UNKNOWN_KIND)
    fault = pb.DealerMessage(
        fault=pb.Fault(
            reason=999, detail="\x1b[2J\x1b]0;owned\x07\nfake", applied=pb.Action(kind=77)
        )
    )
    dealer.send(fault.SerializeToString())
    junk = pb.DealerMessage(
        hand_end=pb.HandEnd(shown=[pb.ShownHand(seat=9, cards=["\x00", "Zz"])], payoffs=[-1])
    )
    dealer.send(junk.SerializeToString())
    start = pb.DealerMessage(hand_start=pb.HandStart(hole_cards=["\x00"] * 7, button=99))
    dealer.send(start.SerializeToString())
    assert _answer(dealer.ask(_decision(GOOD).SerializeToString())) == (
        pb.ACTION_KIND_BET_RAISE, 4, [],
    )  # fmt: skip
    assert dealer.close() == []
    err = served.stop()
    assert "\x1b" not in err and "\x07" not in err
    assert "fault reason 999: \\x1b[2J" in err, err


@pytest.mark.timeout(300)
def test_bytes_that_are_no_message_end_that_stream_and_the_next_plays(served) -> None:
    """A DecisionRequest whose card is not UTF-8 (no proto3 string) ends that stream at
    most; a decision after MatchEnd gets no answer (the bot has ended its side); the next
    stream plays on."""
    raw = Dealer(served.channel, raw=True)
    raw.ask(MATCH_START.SerializeToString())
    bad = _decision(["Q\x01", *GOOD[1:]]).SerializeToString().replace(b"Q\x01", b"\xff\xfe")
    try:
        reply = raw.ask(bad)
    except (StopIteration, grpc.RpcError):  # protobuf refuses a proto3 string that is not UTF-8
        reply = None  # and that stream ends
    assert reply is None or _answer(reply) == (pb.ACTION_KIND_CALL, 0, [])
    ended = Dealer(served.channel)
    ended.ask(MATCH_START)
    ended.send(pb.DealerMessage(match_end=pb.MatchEnd(match_id="m")))
    ended.send(_decision(GOOD))
    assert ended.close() == []
    again = Dealer(served.channel)
    again.ask(MATCH_START)
    assert _answer(again.ask(_decision(GOOD))) == (pb.ACTION_KIND_BET_RAISE, 4, [])
    assert again.close() == []
    err = served.stop()
    if reply is None:  # one line says so (Java's gRPC would print a stack trace)
        assert "a message from the dealer cannot be read" in err, err
