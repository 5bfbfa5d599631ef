"""One bot record, parsed here for the command line and for tournament files alike.

A bot is a :class:`BotSpec`: its ``name``, its ``kind`` (which driver plugin opens
it: the built-in kinds are ``builtin``, ``address`` and ``command``, a plugin may add
others), a ``target`` for that driver (a policy name, ``HOST:PORT``, a command line,
or whatever the plugin wants) and per-bot settings (``requires``, ``workdir``).

Kind ``remote`` (issue 11) is a bot that dials in to ``arena serve``: no plugin opens
it, the server hands the tournament its driver; its target is the bot's own name (the
one its token was issued for), so a renamed copy ``NAME.2`` still points at it.

:func:`make_bot` is the one place a kind's target is checked; the two ways of
writing a bot, ``[NAME=]SPEC`` on the command line (:func:`parse_bot_text`) and a
``[[bots]]`` table (:func:`bot_from_fields`), both end there. Errors are
:class:`BotSpecError` with the field they are about, so each caller words the place.
"""

from __future__ import annotations

import dataclasses
import re
import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.dealer import BotLimits
from arena.policies import BUILT_IN
from arena.tournament._folder import ManifestError, load_manifest

BUILTIN_KINDS = ("builtin", "command", "address")
"""The kinds arena's own driver plugins open; any other kind needs its own plugin."""

REMOTE = "remote"
"""The kind of a bot that dials in (``remote = true``, ``remote:NAME``): only ``arena
serve`` opens it (the server's driver leases one stream per table)."""

FILE_KINDS = (*BUILTIN_KINDS, REMOTE)
"""Kinds a tournament file names with a key of their own (others: ``plugin = KIND``)."""

NAME = re.compile(r"^[A-Za-z0-9_.\-]{1,64}\Z")
"""A bot name: it names records, folders and database rows."""

ADDRESS = re.compile(r"^(unix:\S+|[A-Za-z0-9_.\-\[\]:]+:\d{1,5})\Z")
"""Where a running bot listens: ``HOST:PORT`` or ``unix:PATH``."""

KIND = re.compile(r"^[A-Za-z][A-Za-z0-9_.\-]*\Z")
"""A driver plugin's kind: letters, digits, ``- _ .``, starting with a letter."""

_NAMED = re.compile(r"^([A-Za-z0-9_.\-]{1,64})=(.+)$", re.DOTALL)


class BotSpecError(ValueError):
    """A bot description that cannot be used; ``field`` is the part it is about.

    ``field`` is a tournament-file key (``"builtin"``, ``"command"``, ``"address"``,
    ``"remote"``, ``"plugin"``, ``"target"``, ``"requires"``, ``"workdir"``) or ``None``
    for the whole entry.
    """

    def __init__(self, field: str | None, problem: str) -> None:
        super().__init__(problem)
        self.field = field
        self.problem = problem


@dataclass(frozen=True)
class BotSpec:
    """One bot: what the command line and tournament files both describe.

    ``requires``: an executable (``"node"``) without which a tournament skips the bot
    with a note. ``workdir``: where a command runs (absolute), ``None`` for the
    caller's choice. ``limits``: a command bot's sandbox settings (``[bots.limits]``),
    ``None`` for the defaults. ``folder``: a bot folder's (issue 13 item 4), whose
    ``bot.toml`` gave the command (run in the folder) and ``requires``. ``problem``: why
    a tournament file's folder bot cannot start (its ``bot.toml`` broke after the file
    was written): it forfeits its matches rather than stopping the league.
    """

    name: str
    kind: str
    target: str = ""
    requires: str | None = None
    workdir: Path | None = None
    limits: BotLimits | None = field(default=None, hash=False)
    folder: Path | None = None
    problem: str | None = field(default=None, compare=False)
    private_copy: bool = field(default=False, compare=False)
    """Instance k > 0 of a duplicate deal: at L1+ its folders are a copy of its own."""

    @property
    def command(self) -> str | None:
        """The command line of a ``command`` bot, else ``None``."""
        return self.target if self.kind == "command" else None

    @property
    def argv(self) -> list[str]:
        """The command's arguments; ``{python}`` becomes the interpreter running arena."""
        if self.kind != "command":
            raise ValueError(f"bot {self.name!r} is not a command bot")
        return [sys.executable if arg == "{python}" else arg for arg in shlex.split(self.target)]

    def available(self) -> bool:
        """Whether the executable named by ``requires`` (if any) is on ``PATH``."""
        return self.requires is None or shutil.which(self.requires) is not None

    def renamed(self, name: str) -> BotSpec:
        """The same bot under another name."""
        return dataclasses.replace(self, name=name)

    def instance(self, k: int) -> BotSpec:
        """Its instance for rotation ``k`` of a duplicate deal: itself for 0, else named
        ``NAME.k+1`` with a copy of its folders of its own (its other instances run at
        the same time: no page cache shared with them, issue 19 item 1)."""
        if k == 0:
            return self
        return dataclasses.replace(self, name=f"{self.name}.{k + 1}", private_copy=True)

    def to_dict(self) -> dict[str, Any]:
        """The tournament-file keys of this bot, as stored (and compared on resume)."""
        data: dict[str, Any] = {"name": self.name}
        if self.folder is not None:  # the manifest is re-read, never copied
            data["folder"] = str(self.folder)
            if self.limits is not None:
                data["limits"] = limits_to_dict(self.limits)
            return data
        if self.kind == REMOTE:
            data[REMOTE] = True
            if self.target != self.name:  # `NAME=remote:other` on the command line only
                data["remote_target"] = self.target
        elif self.kind in BUILTIN_KINDS:
            data[self.kind] = self.target
        else:
            data["plugin"] = self.kind
            if self.target:
                data["plugin_target"] = self.target
        if self.requires is not None:
            data["requires"] = self.requires
        if self.workdir is not None:
            data["workdir"] = str(self.workdir)
        if self.limits is not None:
            data["limits"] = limits_to_dict(self.limits)
        return data


def policy_problem(policy: str) -> str | None:
    """Why ``policy`` is not a built-in policy, or ``None`` if it is one."""
    if policy in BUILT_IN:
        return None
    return f"unknown built-in {policy!r}; choose from {', '.join(BUILT_IN)}"


def make_bot(
    name: str,
    kind: str,
    target: str = "",
    *,
    requires: str | None = None,
    workdir: Path | None = None,
    limits: BotLimits | None = None,
) -> BotSpec:
    """A checked :class:`BotSpec`: the one place a kind's target is validated."""
    field = kind if kind in FILE_KINDS else "plugin"
    if kind == "builtin":
        problem = policy_problem(target)
        if problem is not None:
            raise BotSpecError(field, problem)
    elif kind == "address":
        if not ADDRESS.match(target):
            raise BotSpecError(field, f"{target!r} is not HOST:PORT or unix:PATH")
    elif kind == "command":
        try:
            argv = shlex.split(target)
        except ValueError as error:
            raise BotSpecError(field, f"cannot parse the command: {error}") from None
        if not argv:
            raise BotSpecError(field, "the command is empty")
    elif kind == REMOTE:
        _check_remote(name, target, requires)
    elif not KIND.match(kind):
        raise BotSpecError(field, f"{kind!r} is not a driver kind (letters, digits, - _ .)")
    if workdir is not None and kind != "command":
        raise BotSpecError(
            "workdir", f"only used by command bots; bot {name!r} is a {_kind_word(kind)} bot"
        )
    if limits is not None and kind != "command":
        raise BotSpecError(
            "limits", f"only used by command bots; bot {name!r} is a {_kind_word(kind)} bot"
        )
    return BotSpec(name, kind, target, requires, workdir, limits)


def _check_remote(name: str, target: str, requires: str | None) -> None:
    """A remote bot's target is a bot name (its token's); nothing is run here, so no ``requires``."""
    if not NAME.match(target):
        raise BotSpecError(
            REMOTE, f"{target!r} is not a bot name: 1-64 characters from A-Z a-z 0-9 _ . -"
        )
    if requires is not None:
        raise BotSpecError(
            "requires",
            f"only used by bots the arena runs here; bot {name!r} is a remote bot (it dials in)",
        )


def limits_to_dict(limits: BotLimits) -> dict[str, Any]:
    """The ``[bots.limits]`` keys of ``limits`` that differ from the defaults (0: no cap)."""
    defaults = BotLimits()
    data: dict[str, Any] = {}
    for item in dataclasses.fields(BotLimits):
        value = getattr(limits, item.name)
        if value != getattr(defaults, item.name):
            if item.name == "address_space_mb" and value is None:
                value = 0
            data[item.name] = list(value) if item.name == "binds" else value
    if "env" in data:
        data["env"] = dict(data["env"])
    return data


def _kind_word(kind: str) -> str:
    return kind if kind in FILE_KINDS else "plugin"


def parse_bot_text(text: str) -> BotSpec:
    """A bot from the command line: ``[NAME=]builtin:POLICY``, ``[NAME=]HOST:PORT``,
    ``[NAME=]remote:BOT``, ``[NAME=]plugin:KIND:TARGET`` or ``[NAME=]COMMAND``.

    Without ``NAME=`` the name is the policy, the address, the remote bot's name,
    ``KIND-bot`` or the command's last word (``bot.py`` -> ``bot``). ``remote:`` comes
    before addresses (``remote:50051`` is the bot named ``50051``, not a host
    ``remote``). Raises :class:`BotSpecError`.
    """
    raw = text.strip()
    if not raw:
        raise BotSpecError(None, "is empty")
    name = None
    named = _NAMED.match(raw)
    if named and not ADDRESS.match(raw):
        name, raw = named.group(1), named.group(2).strip()
    if raw.startswith("builtin:"):
        policy = raw.removeprefix("builtin:")
        return make_bot(name or policy, "builtin", policy)
    if raw.startswith("remote:"):
        target = raw.removeprefix("remote:")
        return make_bot(name or target, REMOTE, target)
    if raw.startswith("plugin:"):
        kind, _, target = raw.removeprefix("plugin:").partition(":")
        if not KIND.match(kind):
            raise BotSpecError("plugin", "expected plugin:KIND:TARGET, e.g. plugin:example:")
        if kind == REMOTE:
            raise BotSpecError("plugin", "use remote:NAME for a bot that dials in")
        return make_bot(name or f"{kind}-bot", kind, target)
    if ADDRESS.match(raw):
        return make_bot(name or raw, "address", raw)
    if Path(raw).expanduser().is_dir():
        return folder_bot(name, Path(raw))
    spec = make_bot(name or "command", "command", raw)
    if name is None:
        last = shlex.split(raw)[-1].rsplit("/", 1)[-1]
        spec = spec.renamed(last.removesuffix(".py").removesuffix(".js"))
    return spec


def folder_bot(name: str | None, folder: Path, limits: BotLimits | None = None) -> BotSpec:
    """A bot folder's bot: its manifest's command, run in the folder; the name is
    ``name``, else the manifest's, else the folder's. Raises :class:`BotSpecError`."""
    try:
        manifest = load_manifest(folder)
    except ManifestError as error:
        raise BotSpecError("folder", str(error)) from None
    chosen = name or manifest.name or manifest.folder.name
    if name is None and chosen.lower() in BUILT_IN:  # a student's bot never reads as a baseline
        chosen = f"student-{chosen}"
    if not NAME.match(chosen):
        raise BotSpecError(
            "folder", f"{chosen!r} is not a bot name: give one with NAME=DIR or name in bot.toml"
        )
    spec = make_bot(
        chosen,
        "command",
        manifest.run,
        requires=manifest.requires,
        workdir=manifest.folder,
        limits=limits,
    )
    return dataclasses.replace(spec, folder=manifest.folder)


def bot_from_fields(
    name: str,
    fields: Mapping[str, str | None],
    *,
    base: Path,
    limits: BotLimits | None = None,
    remote: bool = False,
) -> BotSpec:
    """A bot from a ``[[bots]]`` table whose values are already strings (or absent).

    ``fields`` holds the entry's keys other than ``name`` and ``remote``; exactly one
    of ``builtin``, ``command``, ``address`` or ``plugin`` names the kind, unless
    ``remote`` (``remote = true``: a bot that dials in, with none of them). A command
    runs in ``workdir`` (relative to ``base``), else in ``base``. Raises
    :class:`BotSpecError` naming the key.
    """
    given = {key: value for key, value in fields.items() if value is not None}
    if "folder" in given:
        return _folder_from_fields(name, given, base, limits, remote)
    kinds = [key for key in (*BUILTIN_KINDS, "plugin") if key in given]
    if remote:
        return _remote_from_fields(name, given, kinds, limits)
    if len(kinds) != 1:
        what = " and ".join(kinds) if kinds else "none"
        raise BotSpecError(
            kinds[1] if kinds else None,
            f"bot {name!r} needs exactly one of builtin, command, address or plugin "
            f"(got {what}), or remote = true for a bot that dials in",
        )
    key = kinds[0]
    if "target" in given and key != "plugin":
        raise BotSpecError("target", f"only used by plugin bots; bot {name!r} is a {key} bot")
    if key == "plugin":
        kind, target = given["plugin"] or "", given.get("target") or ""
        if kind == REMOTE:
            raise BotSpecError("plugin", "use remote = true for a bot that dials in")
        if kind in BUILTIN_KINDS:
            raise BotSpecError("plugin", f"use {kind} = ... for the built-in kind")
    else:
        kind, target = key, given[key] or ""
    workdir_text = given.get("workdir")
    workdir = base if kind == "command" else None
    if workdir_text is not None:
        workdir = (base / Path(workdir_text).expanduser()).resolve()
    return make_bot(
        name, kind, target, requires=given.get("requires"), workdir=workdir, limits=limits
    )


def _remote_from_fields(
    name: str, given: Mapping[str, str | None], kinds: list[str], limits: BotLimits | None
) -> BotSpec:
    """``remote = true``: the bot dials in, so no key says how to run or reach it."""
    for key in (*kinds, "target"):
        if key in given:
            raise BotSpecError(
                key,
                f"bot {name!r} has remote = true (it dials in to `arena serve`): "
                f"remove {key}, or remove remote",
            )
    workdir = Path(given["workdir"] or "") if "workdir" in given else None  # refused by make_bot
    return make_bot(
        name, REMOTE, name, requires=given.get("requires"), workdir=workdir, limits=limits
    )


def _folder_from_fields(
    name: str, given: Mapping[str, str | None], base: Path, limits: BotLimits | None, remote: bool
) -> BotSpec:
    """``folder = "..."``: the folder's manifest says how to build and run the bot."""
    for key in (*BUILTIN_KINDS, "plugin", "target", "workdir", "requires"):
        if key in given:
            raise BotSpecError(
                key, f"bot {name!r} has a folder (its bot.toml says this): remove {key}"
            )
    if remote:
        raise BotSpecError("remote", f"bot {name!r} has a folder: remove remote or folder")
    folder = (base / Path(given["folder"] or "").expanduser()).resolve()
    try:
        return folder_bot(name, folder, limits)
    except BotSpecError as error:  # one student's broken folder must not stop the league
        if error.field != "folder":
            raise
        return BotSpec(name, "command", "", limits=limits, folder=folder, problem=error.problem)
