"""Bot specs on the command line, as click parameters.

The parsing is :func:`arena.tournament._bots.parse_bot_text` (the same record and
checks as a tournament file's ``[[bots]]``); this module only words its errors for
the command line, keeps repeated names apart, and builds bot folders (issue 13 item 4:
a folder's ``bot.toml`` build runs when its output is missing or stale).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import click

from arena.dealer import build_layer
from arena.text import escape_untrusted
from arena.tournament import (
    BotSpec,
    BotSpecError,
    BuildError,
    ManifestError,
    build_folder,
    load_manifest,
    parse_bot_text,
)

__all__ = ["BotSpec", "build_folder_bots", "parse_bot_spec", "unique_names"]


def parse_bot_spec(text: str, index: int) -> BotSpec:
    """Parse bot number ``index`` (from 0); raises ``click.BadParameter`` naming it."""
    try:
        spec = parse_bot_text(text)
    except BotSpecError as error:
        if not text.strip():
            raise click.BadParameter(f"bot #{index + 1} {error.problem}") from None
        raise click.BadParameter(
            f"bot #{index + 1} {text!r}: {escape_untrusted(error.problem)}"
        ) from None
    build_folder_bots([spec])
    return spec


def build_folder_bots(
    specs: Sequence[BotSpec], *, strict: bool = True, hidden: Sequence[str | os.PathLike[str]] = ()
) -> None:
    """Build each folder bot whose build output is missing or older than its sources.

    Builds run in the bots' sandbox; ``hidden`` (records, the database) and the other bots'
    folders are masked should they lie inside a folder. A failed build raises
    ``click.ClickException`` (one line naming the folder, the step and the log); not
    ``strict`` (a tournament: one student's broken build must not stop the others), it is
    a warning line and the bot forfeits when it cannot start.
    """
    folders = [Path(spec.folder).resolve() for spec in specs if spec.folder is not None]
    warned = False
    for spec in specs:
        if spec.folder is None or not spec.available():
            continue
        own = Path(spec.folder).resolve()
        others = [f for f in folders if f != own and f not in own.parents]  # not its parents
        try:
            manifest = load_manifest(spec.folder)
            if manifest.build and not warned and build_layer() == "L0":
                warned = True  # before any build runs, not after (audit)
                click.echo(
                    "warning: bubblewrap does not work here: bot folders' builds run without "
                    "a file-system sandbox and can read and write anything you can "
                    "(apt-get install bubblewrap)",
                    err=True,
                )
            layer = build_folder(manifest, hidden=[*hidden, *others])
        except KeyboardInterrupt:
            where = escape_untrusted(str(spec.folder))
            click.echo(f"interrupted: the build of {spec.name} ({where}) was stopped", err=True)
            raise SystemExit(130) from None
        except (ManifestError, BuildError, OSError) as error:
            line = f"bot {spec.name!r}: {escape_untrusted(str(error))}"
            if strict:
                raise click.ClickException(line) from None
            click.echo(f"warning: {line} (it cannot start: it forfeits its matches)", err=True)
            continue
        if layer is None:
            continue
        where = escape_untrusted(str(spec.folder))
        click.echo(f"built {spec.name} ({where}) in sandbox {layer}", err=True)


def unique_names(specs: list[BotSpec]) -> list[BotSpec]:
    """Suffix repeated names (``rule-based``, ``rule-based-2``) so records stay unambiguous."""
    seen: dict[str, int] = {}
    out = []
    for spec in specs:
        count = seen.get(spec.name, 0) + 1
        seen[spec.name] = count
        out.append(spec if count == 1 else spec.renamed(f"{spec.name}-{count}"))
    return out
