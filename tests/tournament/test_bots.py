"""One bot record: the command line and tournament files describe a bot the same way.

Both surfaces end in :func:`arena.tournament.make_bot`, so the same bot written either
way is the same :class:`BotSpec`, and a bad one is refused with the same words.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from arena.policies import BUILT_IN
from arena.tournament import BotSpec, BotSpecError, TournamentConfigError, parse_bot_text
from arena.tournament import parse_tournament as parse

OTHER = '[[bots]]\nname = "other"\nbuiltin = "random"\n'


def from_toml(table: str, base: Path) -> BotSpec:
    text = f'[tournament]\nname = "t"\n[[bots]]\n{table}\n{OTHER}'
    return parse(text, "t.toml", base_dir=base).bots[0]


class TestSameRecord:
    @pytest.mark.parametrize(
        ("text", "table"),
        [
            ("me=builtin:rule-based", 'name = "me"\nbuiltin = "rule-based"'),
            ("me=127.0.0.1:50051", 'name = "me"\naddress = "127.0.0.1:50051"'),
            ("me=unix:/tmp/bot.sock", 'name = "me"\naddress = "unix:/tmp/bot.sock"'),
            ("me=plugin:example:x", 'name = "me"\nplugin = "example"\ntarget = "x"'),
            ("me=plugin:example:", 'name = "me"\nplugin = "example"'),
        ],
    )
    def test_command_line_and_file_give_the_same_bot(self, text, table, tmp_path):
        """``NAME=SPEC`` and a ``[[bots]]`` table of the same bot are equal records."""
        assert parse_bot_text(text) == from_toml(table, tmp_path)

    def test_a_command_differs_only_in_where_it_runs(self, tmp_path):
        """A file's command bot runs in the file's folder; the command line leaves it open."""
        text = parse_bot_text("me={python} bot.py --fast")
        table = from_toml('name = "me"\ncommand = "{python} bot.py --fast"', tmp_path)
        assert text.workdir is None
        assert table.workdir == tmp_path.resolve()
        assert text.renamed("me") == BotSpec("me", "command", "{python} bot.py --fast")
        assert (table.kind, table.target) == (text.kind, text.target)
        assert [sys.executable, "bot.py", "--fast"] == text.argv == table.argv

    def test_default_names_on_the_command_line(self):
        """Without NAME= a bot is named after its policy, address, kind or script."""
        assert "rule-based" == parse_bot_text("builtin:rule-based").name
        assert "127.0.0.1:1" == parse_bot_text("127.0.0.1:1").name
        assert "example-bot" == parse_bot_text("plugin:example:").name
        assert "bot" == parse_bot_text("node examples/bot.js").name


class TestSameChecks:
    @pytest.mark.parametrize("policy", sorted(BUILT_IN))
    def test_every_built_in_policy_is_accepted_both_ways(self, policy, tmp_path):
        """The list of built-in policies is arena.policies.BUILT_IN, read by both."""
        assert parse_bot_text(f"builtin:{policy}").target == policy
        assert from_toml(f'name = "me"\nbuiltin = "{policy}"', tmp_path).target == policy

    @pytest.mark.parametrize(
        ("text", "table", "key", "problem"),
        [
            ("builtin:genius", 'builtin = "genius"', "builtin", "unknown built-in 'genius'"),
            ("x=python 'bot", 'command = "python \'bot"', "command", "cannot parse the command"),
        ],
    )
    def test_a_bad_bot_is_refused_with_the_same_words(self, text, table, key, problem, tmp_path):
        """The command line and the file word the same problem the same way."""
        with pytest.raises(BotSpecError) as cli_error:
            parse_bot_text(text)
        with pytest.raises(TournamentConfigError) as file_error:
            from_toml(f'name = "x"\n{table}', tmp_path)
        assert problem in cli_error.value.problem
        assert cli_error.value.problem == file_error.value.problem
        assert cli_error.value.field == key
        assert f"bots[0].{key}" == file_error.value.key

    def test_stored_form_is_unchanged(self, tmp_path):
        """The stored copy of a file's bots keeps its keys, so resume compares like with like."""
        bot = from_toml('name = "p"\nplugin = "example"\ntarget = "x"\nrequires = "node"', tmp_path)
        assert {"name": "p", "plugin": "example", "plugin_target": "x", "requires": "node"} == (
            bot.to_dict()
        )
        command = from_toml('name = "c"\ncommand = "./bot"', tmp_path)
        assert {"name": "c", "command": "./bot", "workdir": str(tmp_path.resolve())} == (
            command.to_dict()
        )
