"""An SDK bot that plays a table trained by train.py: learn in process, compete over gRPC.

python examples_bots/trained/bot.py --address 127.0.0.1:50051   # --model FILE: table.npz beside it

Each decision's ``view`` is the same SeatView the training environment gave, so the
policy reads it unchanged; arena.rl maps the chosen action index to the engine's action.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from policy import TablePolicy  # noqa: E402

from arena.rl import to_engine  # noqa: E402
from arena.sdk import Bot, run  # noqa: E402


class TrainedBot(Bot):
    name = "trained"
    version = "1.0"

    def __init__(self, policy: TablePolicy) -> None:
        self.policy = policy

    @classmethod
    def load(cls, path: str | Path) -> TrainedBot:
        return cls(TablePolicy.load(path))

    def decide(self, decision):
        return to_engine(self.policy.act(decision.view), decision.view)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--model", default=str(HERE / "table.npz"))
    known, rest = parser.parse_known_args()
    try:
        bot = TrainedBot.load(known.model)
    except (OSError, ValueError, KeyError) as error:
        sys.exit(f"trained bot: cannot load {known.model!r}: {error} (run train.py first)")
    run(bot, rest)
