"""A hostile submission folder (issue 13 audit): it must not crash a league, overwrite a
file through a planted link, or leave its build's processes running.

These are the defects a folder can use without even a suspicious build command; what a
hostile build command can do is in tests/hostile/test_build_sandbox.py.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import arena.tournament._folder as folder_module
from arena.tournament import ManifestError, build_folder, load_manifest
from arena.tournament._folder import needs_build


def _folder(tmp_path: Path, manifest: str) -> Path:
    folder = tmp_path / "student"
    folder.mkdir()
    (folder / "bot.toml").write_text(manifest)
    (folder / "bot.py").write_text("print('hi')\n")
    return folder


def test_a_planted_build_log_link_never_overwrites_its_target(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    folder = _folder(tmp_path, 'name = "s"\nrun = "{python} bot.py"\nbuild = ["true"]\n')
    (folder / ".arena-build.log").symlink_to(victim)
    build_folder(load_manifest(folder), force=True)
    assert victim.read_text() == "precious"
    assert not (folder / ".arena-build.log").is_symlink()


def test_a_dangling_source_link_is_not_a_crash(tmp_path: Path) -> None:
    folder = _folder(
        tmp_path, 'name = "s"\nrun = "{python} bot.py"\nbuild = ["true"]\noutput = "bot.py"\n'
    )
    (folder / "gone.c").symlink_to(tmp_path / "nowhere")
    (folder / "loop.c").symlink_to(folder / "loop.c")
    assert needs_build(load_manifest(folder)) in (True, False)


@pytest.mark.parametrize("kind", ["deep", "huge", "link"])
def test_a_hostile_manifest_is_one_manifest_error(tmp_path: Path, kind: str) -> None:
    folder = tmp_path / "student"
    folder.mkdir()
    if kind == "deep":
        (folder / "bot.toml").write_text("build = " + "[" * 100_000 + "]" * 100_000 + "\n")
    elif kind == "huge":
        (folder / "bot.toml").write_text('name = "s"\nrun = "x"\n' + "# padding\n" * 20_000)
    else:
        outside = tmp_path / "elsewhere.toml"
        outside.write_text('name = "s"\nrun = "x"\n')
        (folder / "bot.toml").symlink_to(outside)
    with pytest.raises(ManifestError):
        load_manifest(folder)


def test_sources_through_symlink_loops_do_not_hang_needs_build(  # issue 13 audit
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MEDIUM. ``needs_build`` globs each ``sources`` pattern in the arena's own process,
    before any build budget, following symlinks. A folder with links ``l0..l7 -> .``
    and ``sources = ["*/*/*/*/*/*/*/*/*.cpp"]`` made ``needs_build`` run for over 60 s
    (11^8 paths; one more ``*/`` multiplies it by 11): one student's folder stops
    ``arena tournament run`` for everyone before the first match. The build itself may
    plant the links, so the next run hangs. Here (4 links, 5 levels) the directory scans
    are counted, deterministically. Fix: walk the folder once without following
    symlinks (``os.walk``) and match the patterns against relative paths, or cap the
    entries examined."""
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "a.cpp").write_text("int main() {}")
    (folder / "build").mkdir()
    (folder / "build" / "bot").write_text("built")
    for index in range(4):
        (folder / f"l{index}").symlink_to(".")
    (folder / "bot.toml").write_text(
        'run = "build/bot"\nbuild = ["true"]\noutput = "build/bot"\nsources = ["*/*/*/*/*/*.cpp"]\n'
    )
    manifest = load_manifest(folder)
    scans = [0]
    real_scandir = os.scandir

    def counting_scandir(path="."):
        scans[0] += 1
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", counting_scandir)
    folder_module.needs_build(manifest)
    assert scans[0] <= 100, f"needs_build scanned {scans[0]} directories of a 2-folder tree"
