"""``arena new-bot DIR --lang python|node|cpp|go|java``: a ready-to-run bot folder (issue 13
item 4; Go and Java: issue 24).

The templates are package data (``arena/cli/templates/LANG/*.tmpl``): each file is
written without its ``.tmpl`` suffix, ``__BOT_NAME__`` replaced by the bot's name. The
folder's ``bot.toml`` says how to build and run it, so ``arena check-bot DIR`` and
``arena match DIR ...`` take the folder itself.
"""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import click

NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,64}\Z")  # a bot name, as arena.tournament checks it

LANGS = ("python", "node", "cpp", "go", "java")
PLACEHOLDER = "__BOT_NAME__"

_NEXT = {
    "python": "arena check-bot {dir}",
    "node": "arena check-bot {dir}    # runs `npm ci` first (Node.js 20+)",
    "cpp": "arena check-bot {dir}    # builds with CMake first (libgrpc++-dev, protobuf-compiler-grpc)",
    "go": "arena check-bot {dir}    # builds with build.sh first (golang-go, golang-google-grpc-dev)",
    "java": "arena check-bot {dir}    # builds with build.sh first (default-jdk, libgrpc-java)",
}


def template_files(lang: str) -> dict[str, str]:
    """The files of ``lang``'s template: name in the new folder -> text (placeholder in)."""
    folder = resources.files("arena.cli").joinpath("templates", lang)
    return {
        entry.name.removesuffix(".tmpl"): entry.read_text(encoding="utf-8")
        for entry in sorted(folder.iterdir(), key=lambda e: e.name)
        if entry.name.endswith(".tmpl")
    }


def write_bot(folder: Path, lang: str, name: str) -> list[Path]:
    """Write ``lang``'s template into ``folder`` (made if missing; must be empty)."""
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise click.ClickException(f"{folder}: already exists and is not an empty folder")
    files = template_files(lang)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for file_name, text in files.items():
        path = folder / file_name
        path.write_text(text.replace(PLACEHOLDER, name), encoding="utf-8")
        if file_name.endswith(".sh"):  # a build script (Go, Java): ./build.sh works too
            path.chmod(0o755)
        written.append(path)
    return written


@click.command("new-bot")
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--lang", type=click.Choice(LANGS), default="python", show_default=True)
@click.option("--name", help="The bot's name (default: the folder's name).")
def command(folder: Path, lang: str, name: str | None) -> None:
    """Make FOLDER a ready-to-run bot: its README, a first strategy and a bot.toml.

    FOLDER then works wherever a bot does: `arena check-bot FOLDER`, `arena match
    FOLDER builtin:random`, `folder = "FOLDER"` in a tournament file.
    """
    chosen = name or folder.resolve().name
    if not NAME.match(chosen):
        raise click.ClickException(
            f"{chosen!r} is not a bot name (1-64 characters from A-Z a-z 0-9 _ . -): use --name"
        )
    try:
        written = write_bot(folder, lang, chosen)
    except OSError as error:
        raise click.ClickException(f"{folder}: cannot write: {error.strerror}") from None
    click.echo(f"wrote {len(written)} files for the {lang} bot {chosen!r} in {folder}")
    click.echo("next: " + _NEXT[lang].format(dir=folder))
