"""``arena doctor``: which sandbox layers work on this machine, and why a layer is missing.

Competitions run bots nobody trusts; an organiser should know before the first match
what protects them. The layers are probed the way a match would use them (bubblewrap
is actually run, a cgroup actually created), so the answer is the one ``--sandbox
auto`` will act on.
"""

from __future__ import annotations

import os

import click

from arena.cli._options import SANDBOX_CHOICES
from arena.text import escape_untrusted

PROTECTS = {
    "L0": (
        "exec-chain launcher, own process group, clean environment, a private current "
        "folder, rlimits (no core files, open files, file size, CPU backstop, address "
        "space), a per-seat unix socket, every descendant killed at the end"
    ),
    "L1": (
        "bubblewrap: network namespace with only loopback, read-only system, the bot's "
        "own folder read-only, a private size-capped /tmp, nothing else of the file "
        "system (no other bot, no records, no database), a PID namespace"
    ),
    "L2": (
        "as root: a per-seat uid from a reserved range and a cgroup per seat (memory "
        "and process limits, CPU accounting, an equal CPU weight)"
    ),
}
"""What each layer adds, as `arena doctor` and the README say it."""


@click.command("doctor")
@click.option(
    "--require",
    type=click.Choice(SANDBOX_CHOICES[2:]),
    default=None,
    help="Exit with status 1 unless this layer works (for CI and competition servers).",
)
def command(require: str | None) -> None:
    """Print the sandbox layers that work here (L0, L1, L2), and why any is missing."""
    from arena.sandbox import SandboxError, check_layers, resolve_sandbox  # when it runs
    from arena.sandbox._protections import check_protections
    from arena.sandbox._sandbox import check_seat_groups

    checks = check_layers()
    for check in checks:
        mark = "yes" if check.available else "NO "
        click.echo(f"{check.layer}  {mark}  {escape_untrusted(check.detail)}")
        if check.available:
            click.echo(f"        protects: {PROTECTS.get(check.layer, '')}")
    for check in check_seat_groups():  # equal CPU weights, L1 as root's cgroups (issue 19)
        mark = "yes" if check.available else "NO "
        click.echo(f"{check.layer}  {mark}  {escape_untrusted(check.detail)}")
    for check in check_protections():  # the sandbox's kernel surface, probed (issue 19)
        mark = "yes" if check.available else "NO "
        click.echo(f"{check.layer}  {mark}  {escape_untrusted(check.detail)}")
    chosen = resolve_sandbox("auto")
    click.echo(f"--sandbox auto picks {chosen}")
    if chosen in ("off", "L0"):
        click.echo(
            "warning: at L0 a bot runs as your uid and can read every file you can, "
            "including the records of the match it plays (runs/) and the database; "
            "install bubblewrap (L1) to hide them"
        )
    else:
        click.echo("records and the database are not visible to bots (not mounted at L1+)")
    if os.geteuid() == 0:
        click.echo(
            "as root: never use --sandbox off or L0 for bots you do not trust (they run as root)"
        )
    if require is not None:
        try:
            resolve_sandbox(require)
        except SandboxError as error:
            raise click.ClickException(str(error)) from None
