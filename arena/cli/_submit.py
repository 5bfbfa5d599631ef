"""``arena submit FOLDER --server URL``: a team sends its bot folder to the ladder (issue 22).

The folder is packed here (:func:`arena.ladder._intake.pack_folder`, so a link or an
oversized folder is refused before the upload) and posted with the team's token from
``$ARENA_TEAM_TOKEN``. Everything the server says is a stranger's text on this terminal,
so each piece of it is escaped before it is printed. httpx and the ladder are imported
only when the command runs: ``arena submit --help`` stays light.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import urljoin, urlsplit

import click

from arena.text import escape_untrusted

if TYPE_CHECKING:
    import httpx

TOKEN_VARIABLE = "ARENA_TEAM_TOKEN"
FINAL = frozenset({"active", "rejected", "build failed", "benched", "retired"})
"""The statuses ``--wait`` stops at: only ``active`` is a success."""
POLL_SECONDS = 1.0
_sleep = time.sleep  # the tests' seam: they wait no real second


def _client(server: str, token: str) -> httpx.Client:
    """The client every request goes through (tests swap in an ``httpx.MockTransport``)."""
    import httpx

    return httpx.Client(base_url=server, headers={"Authorization": f"Bearer {token}"}, timeout=60.0)


def _fail(line: str, code: int = 1) -> NoReturn:
    click.echo(f"arena submit: {line}", err=True)
    raise SystemExit(code)


def _body(response: httpx.Response) -> dict[str, Any]:
    """The answer's JSON object; a non-2xx answer fails with the server's one line."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.is_success and isinstance(body, dict):
        return body
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        said = body["error"]
    else:
        said = response.reason_phrase or "no error given"
    _fail(f"{escape_untrusted(said, one_line=True)} (HTTP {response.status_code})")


def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    return escape_untrusted(str(value), one_line=True) if value is not None else "?"


def _upload(client: httpx.Client, server: str, folder: Path, data: bytes) -> dict[str, Any]:
    import httpx

    files = {"archive": (f"{folder.name}.tar.gz", data, "application/gzip")}
    try:
        response = client.post("/api/submissions", files=files)
    except httpx.HTTPError as error:
        _fail(f"cannot reach {server}: {escape_untrusted(str(error) or type(error).__name__)}")
    return _body(response)


def _poll(client: httpx.Client, server: str, version: int) -> dict[str, Any] | str:
    """The version's state, or the error that kept the server from answering (a restart)."""
    import httpx

    try:
        response = client.get(f"/api/versions/{version}")
    except httpx.HTTPError as error:
        return f"cannot reach {server}: {escape_untrusted(str(error) or type(error).__name__)}"
    return _body(response)


def _wait(client: httpx.Client, server: str, version: int, status: str, timeout: float) -> None:
    """Follow the version until a final status, a line per change; exit 1 unless active."""
    deadline = time.monotonic() + timeout
    body: dict[str, Any] = {"status": status}
    while body.get("status") not in FINAL:
        if time.monotonic() >= deadline:
            _fail(f"version {version} is still {_text(body, 'status')} after {timeout:g} s")
        _sleep(POLL_SECONDS)
        answer = _poll(client, server, version)
        if isinstance(answer, str):
            click.echo(f"  {answer} (retrying)", err=True)
            continue
        if answer.get("status") != body.get("status"):
            click.echo(f"version {version}: {_text(answer, 'status')}")
        body = answer
    if body["status"] == "active":
        return
    click.echo(f"arena submit: version {version} {_text(body, 'status')}", err=True)
    if body.get("reason"):
        click.echo(f"reason: {_text(body, 'reason')}", err=True)
    if body.get("log_tail"):
        click.echo("log tail:", err=True)
        for line in str(body["log_tail"]).splitlines():
            click.echo(f"  {escape_untrusted(line)}", err=True)
    raise SystemExit(1)


def _checked(server: str) -> str:
    parts = urlsplit(server)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        _fail(f"--server {server!r} is not an http:// or https:// URL", code=2)
    return server.rstrip("/")


@click.command("submit")
@click.argument("folder", type=click.Path(path_type=Path, exists=True, file_okay=False))
@click.option(
    "--server", required=True, metavar="URL", help="The ladder's URL (http:// or https://)."
)
@click.option(
    "--wait",
    is_flag=True,
    help="Follow the version's build and gate until it is active or refused.",
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0),
    default=600.0,
    show_default=True,
    metavar="SECONDS",
    help="With --wait: give up after SECONDS.",
)
def command(folder: Path, server: str, wait: bool, timeout: float) -> None:
    """Send the bot FOLDER to the ladder at --server as a new version of your team's bot.

    The token is $ARENA_TEAM_TOKEN (the organiser's `arena ladder teams add` prints it).
    Exit status: 0 sent (with --wait: active), 1 refused or failed, 2 a usage error.
    """
    server = _checked(server)
    token = os.environ.get(TOKEN_VARIABLE, "").strip()
    if not token:
        _fail(f"set ${TOKEN_VARIABLE} to your team's token (the organiser gives it)", code=2)
    from arena.ladder._intake import Refused, pack_folder

    try:
        data = pack_folder(folder)
    except Refused as refusal:
        _fail(escape_untrusted(str(refusal)))
    try:
        import httpx  # noqa: F401 - only to say what is missing
    except ImportError:
        _fail("the ladder client needs httpx: pip install 'arena[ladder]'")
    with _client(server, token) as client:
        body = _upload(client, server, folder, data)
        version = body.get("version")
        if not isinstance(version, int):
            _fail("the server's answer names no version")
        url = urljoin(server + "/", str(body.get("url") or ""))
        status = str(body.get("status"))
        click.echo(f"version {version}: {_text(body, 'status')}  {escape_untrusted(url)}")
        if wait:
            _wait(client, server, version, status, timeout)
