"""``arena replay FILE...``: replay PHH hand histories through the engine."""

from __future__ import annotations

import json
from pathlib import Path

import click

from arena.engine import Hand, HandShown, PotAwarded
from arena.history import PhhError, PhhHand, load_phh, replay
from arena.history._errors import printable


@click.command("replay")
@click.argument(
    "files",
    nargs=-1,
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print one JSON object per hand (finishing_stacks in the file's player order).",
)
@click.option(
    "--html",
    "as_html",
    is_flag=True,
    help="Write the hand replayer: one self-contained HTML page stepping through every hand.",
)
@click.option(
    "--reveal",
    is_flag=True,
    help="With --html: a director's replay showing every card (default: the spectator's view).",
)
@click.option(
    "-o",
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    help="With --html: the page to write (default: replay.html beside the file).",
)
def command(
    files: tuple[Path, ...], as_json: bool, as_html: bool, reveal: bool, output: Path | None
) -> None:
    """Replay every hand of the PHH files (.phh, .phhs) through the arena's engine.

    Each action is applied under the arena's rules; the file's finishing_stacks, when
    present, must match. Stops at the first file, hand or action that does not, naming
    it, with exit status 1. Variant codes: F5D, P5D, N5D (see docs/phh.md).

    With --html, writes the replayer page of one file instead (a match's hands.phhs):
    seats, stacks, bets, the pot, draw counts, cards shown at showdown and the winner,
    step by step (keys Space, Left/Right, Home/End). It holds only the cards shown at the
    table unless --reveal is given.
    """
    if as_html:
        _write_html(files, as_json=as_json, reveal=reveal, output=output)
        return
    if reveal or output is not None:
        raise click.UsageError("--reveal and -o/--output go with --html")
    count = 0
    for path in files:
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise click.ClickException(f"{path}: cannot read the file ({error})") from None
        try:
            records = load_phh(text, source=str(path))
            for record in records:
                hand = replay(record)
                click.echo(_json(record, hand) if as_json else _summary(record, hand))
                count += 1
        except PhhError as error:
            raise click.ClickException(str(error)) from None
    if not as_json:
        click.echo(
            f"replayed {count} hand{'s' * (count != 1)} from {len(files)} file{'s' * (len(files) != 1)}: all legal"
        )


def _write_html(
    files: tuple[Path, ...], *, as_json: bool, reveal: bool, output: Path | None
) -> None:
    """``--html``: the replayer page of one hand-history file."""
    from arena.web import public_match, render_replay  # the templates: only for --html

    if as_json:
        raise click.UsageError("--html and --json do not go together")
    if len(files) != 1:
        raise click.UsageError("--html replays one file (a match's hands.phhs)")
    path = files[0]
    target = output if output is not None else path.parent / "replay.html"
    try:
        hands = public_match(path, reveal=reveal)
        kind = "director's replay" if reveal else "replay"
        page = render_replay(hands, title=f"{path.parent.name or path.name}: {kind}", reveal=reveal)
        target.write_text(page, encoding="utf-8")
    except PhhError as error:
        raise click.ClickException(str(error)) from None
    except (OSError, UnicodeDecodeError) as error:
        raise click.ClickException(f"{printable(str(error))}") from None
    view = "director's view, every card" if reveal else "spectator's view"
    click.echo(f"wrote {printable(str(target))} ({len(hands)} hands, {view})")


def _names(record: PhhHand) -> list[str]:
    n = len(record.starting_stacks)
    if record.players is None:
        return [f"p{k + 1}" for k in range(n)]
    return [f"p{k + 1} {printable(name)}" for k, name in enumerate(record.players)]


def _showdown(hand: Hand) -> bool:
    return any(type(e) is HandShown and not e.openers for e in hand.events)


def _summary(record: PhhHand, hand: Hand) -> str:
    names = _names(record)
    won: dict[int, int] = {}
    for event in hand.events:
        if type(event) is PotAwarded:
            won[event.seat] = won.get(event.seat, 0) + event.amount
    if hand.dead:
        outcome = f"dead hand, {hand.carried_out} carried over"
    else:
        how = "at showdown" if _showdown(hand) else "uncontested"
        outcome = (
            ", ".join(f"{names[seat]} wins {amount}" for seat, amount in won.items()) + f" {how}"
        )
    checked = " (matches finishing_stacks)" if record.finishing_stacks is not None else ""
    stacks = ", ".join(f"{name} {chips}" for name, chips in zip(names, hand.stacks, strict=True))
    return (
        f"{printable(record.source)} hand {printable(record.name)} "
        f"[{record.variant}, {hand.n} players]: "
        f"{outcome}; stacks {stacks}{checked}"
    )


def _json(record: PhhHand, hand: Hand) -> str:
    return json.dumps(
        {
            "file": record.source,
            "hand": record.name,
            "variant": record.variant,
            "players": list(record.players) if record.players is not None else None,
            "starting_stacks": list(record.starting_stacks),
            "finishing_stacks": list(hand.stacks),
            "payoffs": list(hand.payoffs or ()),
            "showdown": _showdown(hand),
            "finishing_stacks_checked": record.finishing_stacks is not None,
        }
    )
