"""What ``arena check-bot`` runs: one bot driven through every kind of decision, and what it got wrong.

For bot authors. Each scenario is a short seeded match against in-process opponents
over the bot's real transport; any fault is reported with its reason and the
dealer's explanation, and the exit status is non-zero if anything failed.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import click
import trio
from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from arena.cli._bots import BotSpec, parse_bot_spec
from arena.cli._match_play import open_drivers, terminal_safe
from arena.cli._sandbox import checked_sandbox
from arena.dealer import BotDriver
from arena.tournament._checks import SCENARIOS, Outcome, run_checks


def _say_outcome(number: int, outcome: Outcome) -> None:
    """One line per scenario as it ends (flushed: a slow bot's run is not silent)."""
    verdict = "ok" if outcome.passed else "FAILED: " + outcome.problems[0]
    line = f"scenario {number + 1}/{len(SCENARIOS)} {outcome.scenario.name}: {verdict}"
    click.echo(terminal_safe(f"{line} ({outcome.hands} hands)"))


def check(
    bot: str, action_timeout: float, startup_timeout: float, seed: int, log_dir: Path, sandbox: str
) -> None:
    """Run `arena check-bot` with the options it was given: the table, and exit status 1
    if the bot faulted anywhere."""
    checked_sandbox(sandbox)
    spec = parse_bot_spec(bot, 0)
    outcomes = trio.run(_check, spec, action_timeout, startup_timeout, seed, log_dir, sandbox)
    console = Console()
    table = RichTable(title=f"check-bot {spec.name} (seed {seed})")
    table.add_column("scenario")
    table.add_column("hands", justify="right")
    table.add_column("result")
    for outcome in outcomes:
        # problems quote the bot (its ids, its stderr): plain text, control characters escaped
        verdict = (
            Text("ok", style="green")
            if outcome.passed
            else Text(terminal_safe("\n".join(outcome.problems)), style="red")
        )
        table.add_row(outcome.scenario.name, str(outcome.hands), verdict)
    console.print(table)
    failed = sum(not o.passed for o in outcomes)
    if failed:
        raise click.ClickException(f"{failed} of {len(outcomes)} scenarios failed")
    console.print(f"all {len(outcomes)} scenarios passed")


async def _check(
    spec: BotSpec,
    action_timeout: float,
    startup_timeout: float,
    seed: int,
    log_dir: Path,
    sandbox: str = "auto",
) -> list[Outcome]:
    @contextlib.asynccontextmanager
    async def open_bot(number: int) -> AsyncIterator[BotDriver]:
        async with contextlib.AsyncExitStack() as stack:
            (driver,) = await open_drivers(
                [spec],
                stack,
                log_dir=log_dir / f"scenario-{number + 1}",
                startup_timeout=startup_timeout,
                seed=seed,
                options={"sandbox": sandbox},
            )
            yield driver

    return await run_checks(
        open_bot, action_timeout=action_timeout, seed=seed, on_outcome=_say_outcome
    )
