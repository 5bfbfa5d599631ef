"""``arena submit`` against a ladder played by ``httpx.MockTransport`` (issue 22 item 1).

The mock server follows the ladder's protocol: ``POST /api/submissions`` (multipart field
``archive``, a bearer token) answers 201 with the version, ``GET /api/versions/N`` its
state; errors are ``{"error": line}``. Every line the server writes is a stranger's, so
the tests also send an escape sequence and check it arrives escaped.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner, Result

from arena.cli import _submit
from arena.cli._app import cli
from arena.ladder._intake import store_submission

SERVER = "http://127.0.0.1:9"
Handler = Callable[[httpx.Request], httpx.Response]


@pytest.fixture
def bot(tmp_path: Path) -> Path:
    folder = tmp_path / "mybot"
    folder.mkdir()
    (folder / "bot.toml").write_text('name = "mybot"\nrun = "python bot.py"\n')
    (folder / "bot.py").write_text("print('hi')\n")
    return folder


@pytest.fixture(autouse=True)
def fast(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_TEAM_TOKEN", "team-secret")
    monkeypatch.setattr(_submit, "_sleep", lambda seconds: None)


def serve(monkeypatch: pytest.MonkeyPatch, handler: Handler) -> None:
    """Every client the command builds talks to ``handler`` (with the real headers)."""

    original = _submit._client

    def client(server: str, token: str) -> httpx.Client:
        with original(server, token) as real:
            pass
        return httpx.Client(
            base_url=real.base_url, headers=real.headers, transport=httpx.MockTransport(handler)
        )

    monkeypatch.setattr(_submit, "_client", client)


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["submit", *args], catch_exceptions=False)


def ladder(statuses: list[dict[str, object]], seen: list[httpx.Request]) -> Handler:
    """A ladder taking one upload as version 3, then answering ``statuses`` in turn."""
    states: Iterator[dict[str, object]] = iter(statuses)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.headers.get("authorization") != "Bearer team-secret":
            return httpx.Response(401, json={"error": "unknown team token"})
        if request.method == "POST" and request.url.path == "/api/submissions":
            return httpx.Response(201, json={"version": 3, "status": "queued", "url": "/v/3"})
        if request.method == "GET" and request.url.path == "/api/versions/3":
            state = {"version": 3, "reason": None, "log_tail": None, **next(states)}
            return httpx.Response(200, json=state)
        return httpx.Response(404, json={"error": "no such page"})

    return handler


def test_a_folder_is_uploaded_as_a_tar_gz_with_the_bearer_token(bot, monkeypatch, tmp_path):
    """201: the version and its page; the upload is the folder (it unpacks on the server)."""
    seen: list[httpx.Request] = []
    serve(monkeypatch, ladder([], seen))
    result = run(str(bot), "--server", SERVER + "/")
    assert 0 == result.exit_code, result.output
    assert result.stdout == f"version 3: queued  {SERVER}/v/3\n"
    (upload,) = seen
    assert str(upload.url) == f"{SERVER}/api/submissions"
    body = upload.read()
    assert b'name="archive"; filename="mybot.tar.gz"' in body
    archive = body.split(b"\r\n\r\n", 1)[1].rsplit(b"\r\n--", 1)[0]
    stored = store_submission(archive, "mybot.tar.gz", tmp_path / "server")
    assert (stored.folder / "bot.py").read_text() == "print('hi')\n"


def test_wait_follows_the_build_and_the_gate_to_active(bot, monkeypatch) -> None:
    seen: list[httpx.Request] = []
    states = [{"status": "queued"}, {"status": "building"}, {"status": "building"}]
    states += [{"status": "validating"}, {"status": "active"}]
    serve(monkeypatch, ladder(states, seen))
    result = run(str(bot), "--server", SERVER, "--wait")
    assert 0 == result.exit_code, result.output
    assert result.stdout.splitlines() == [
        f"version 3: queued  {SERVER}/v/3",
        "version 3: building",
        "version 3: validating",
        "version 3: active",
    ]
    assert len(seen) == 1 + len(states)


def test_wait_to_rejected_prints_the_reason_and_the_log_tail(bot, monkeypatch) -> None:
    rejected = {
        "status": "rejected",
        "reason": "sat out 4 hands against house:random",
        "log_tail": "Traceback (most recent call last):\nKeyError: 'pot'\x1b[2J",
    }
    serve(monkeypatch, ladder([{"status": "validating"}, rejected], []))
    result = run(str(bot), "--server", SERVER, "--wait")
    assert 1 == result.exit_code
    assert "arena submit: version 3 rejected\n" in result.stderr
    assert "reason: sat out 4 hands against house:random\n" in result.stderr
    assert (
        "log tail:\n  Traceback (most recent call last):\n  KeyError: 'pot'\\x1b[2J\n"
        in result.stderr
    )
    assert "\x1b" not in result.output


def test_wait_gives_up_after_the_timeout(bot, monkeypatch) -> None:
    serve(monkeypatch, ladder([], []))
    result = run(str(bot), "--server", SERVER, "--wait", "--timeout", "0")
    assert 1 == result.exit_code
    assert result.stderr == "arena submit: version 3 is still queued after 0 s\n"


@pytest.mark.parametrize(
    ("code", "error"),
    [(401, "unknown team token"), (429, "3 submissions today: the limit is 3 a day")],
)
def test_an_error_answer_is_one_line_with_its_status(bot, monkeypatch, code, error) -> None:
    serve(monkeypatch, lambda request: httpx.Response(code, json={"error": error}))
    result = run(str(bot), "--server", SERVER)
    assert 1 == result.exit_code
    assert result.stderr == f"arena submit: {error} (HTTP {code})\n"


def test_an_escape_sequence_in_the_servers_error_is_printed_escaped(bot, monkeypatch) -> None:
    hostile = "refused\x1b]0;pwned\x07\u202e\nsecond line"
    serve(monkeypatch, lambda request: httpx.Response(422, json={"error": hostile}))
    result = run(str(bot), "--server", SERVER)
    assert 1 == result.exit_code
    line = "arena submit: refused\\x1b]0;pwned\\x07\\u202e | second line (HTTP 422)\n"
    assert result.stderr == line


def test_an_answer_that_is_not_json_still_gives_one_line(bot, monkeypatch) -> None:
    serve(monkeypatch, lambda request: httpx.Response(502, text="<html>Bad Gateway</html>"))
    result = run(str(bot), "--server", SERVER)
    assert (1, "arena submit: Bad Gateway (HTTP 502)\n") == (result.exit_code, result.stderr)


def test_a_missing_token_says_to_set_it(bot, monkeypatch) -> None:
    monkeypatch.delenv("ARENA_TEAM_TOKEN")
    serve(monkeypatch, lambda request: pytest.fail("sent without a token"))
    result = run(str(bot), "--server", SERVER)
    assert 2 == result.exit_code
    assert result.stderr.count("\n") == 1 and "set $ARENA_TEAM_TOKEN" in result.stderr


def test_only_http_and_https_urls(bot) -> None:
    result = run(str(bot), "--server", "file:///etc/passwd")
    assert 2 == result.exit_code
    assert "is not an http:// or https:// URL" in result.stderr


def test_a_folder_the_packer_refuses_is_never_sent(bot, monkeypatch) -> None:
    (bot / "key").symlink_to("/etc/passwd")
    serve(monkeypatch, lambda request: pytest.fail("a refused folder was sent"))
    result = run(str(bot), "--server", SERVER)
    assert 1 == result.exit_code
    assert (
        result.stderr
        == f"arena submit: {bot / 'key'} is a symlink (the ladder takes plain files only)\n"
    )


def test_an_unreachable_server_is_one_line_naming_it(bot, monkeypatch) -> None:
    """A closed port on 127.0.0.1 with the real client (no proxy in between)."""
    for name in (
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "all_proxy",
    ):
        monkeypatch.delenv(name, raising=False)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = f"http://127.0.0.1:{port}"
    result = run(str(bot), "--server", server)
    assert 1 == result.exit_code
    assert result.stderr.startswith(f"arena submit: cannot reach {server}: ")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output


def test_the_protocol_example_answers_parse(bot, monkeypatch) -> None:
    """An absolute version URL is printed as the server gave it."""
    answer = {"version": 7, "status": "queued", "url": "https://ladder.example/teams/a/v/7"}
    serve(monkeypatch, lambda request: httpx.Response(201, content=json.dumps(answer)))
    result = run(str(bot), "--server", SERVER)
    assert result.stdout == "version 7: queued  https://ladder.example/teams/a/v/7\n"


def test_wait_rides_out_a_server_restart(bot, monkeypatch) -> None:
    """A poll the server does not answer (kill -9, restart) is retried, not fatal."""
    answers = iter(["down", "active"])

    def handler(request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(201, json={"version": 3, "status": "building", "url": "/v/3"})
        if next(answers) == "down":
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        return httpx.Response(200, json={"version": 3, "status": "active"})

    serve(monkeypatch, handler)
    result = run(str(bot), "--server", SERVER, "--wait")
    assert 0 == result.exit_code, result.output
    assert "Connection refused (retrying)" in result.stderr
    assert result.stdout.splitlines()[-1] == "version 3: active"
