"""Train the tabular betting policy in arena.rl's Gymnasium environment (numpy only).

python examples_bots/trained/train.py --hands 60000   # saves examples_bots/trained/table.npz

Monte Carlo control: each hand is an episode against an opponent drawn from
``--opponents`` (built-in policies); every betting decision's (state, action) is
credited with the hand's result in big blinds, and the policy picks the best mean with
probability 1 - epsilon (epsilon falls from 0.3 to 0.02). One core, a few minutes at the
default size; the bot in ``bot.py`` serves the saved table.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path

HERE = Path(__file__).resolve().parent
TABLE = HERE / "table.npz"
"""Where the table is saved by default: beside the bot, inside the folder a sandboxed bot
sees (``arena-data/`` is hidden from launched bots)."""
sys.path.insert(0, str(HERE))

from policy import TablePolicy, draw_action, legal_actions, state_of  # noqa: E402

import arena.rl  # noqa: E402
from arena.engine import Phase  # noqa: E402


def train(
    hands: int,
    *,
    opponents: Sequence[str] = ("calling-station", "rule-based", "random"),
    seed: int = 1,
    settings: dict[str, object] | None = None,
    policy: TablePolicy | None = None,
) -> TablePolicy:
    """Play ``hands`` hands and return the learned table (``policy`` to go on training one)."""
    policy = policy or TablePolicy()
    rng = random.Random(seed)
    envs = [arena.rl.gym_env([name], **(settings or {})) for name in opponents]
    for k, env in enumerate(envs):
        env.reset(seed=seed * 1000 + k)
    for hand in range(hands):
        env = envs[hand % len(envs)]
        epsilon = max(0.02, 0.3 * (1 - hand / max(1, hands)))
        visited: list[tuple[int, int]] = []
        done = False
        reward = 0.0
        while not done:
            view = env.view()
            assert view.legal is not None
            if view.legal.phase is Phase.DRAW:
                action = draw_action(view)
            else:
                state = state_of(view)
                if rng.random() < epsilon:
                    action = rng.choice(legal_actions(view))
                else:
                    action = policy.act(view)
                visited.append((state, action))
            _, reward, done, _, _ = env.step(action)
        for state, action in visited:
            policy.update(state, action, float(reward))
        env.reset()
    return policy


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=60_000, help="training hands (60000)")
    parser.add_argument("--out", default=str(TABLE), help="where to save the table")
    parser.add_argument(
        "--opponents",
        default="calling-station,rule-based,random",
        help="built-in policies to train against, in turn",
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    start = time.process_time()
    policy = train(args.hands, opponents=args.opponents.split(","), seed=args.seed)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    policy.save(out)
    seconds = time.process_time() - start
    tried = int((policy.counts.sum(axis=1) > 0).sum())
    print(f"trained on {args.hands} hands in {seconds:.0f} s of CPU; {tried} states seen")
    print(f"saved {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
