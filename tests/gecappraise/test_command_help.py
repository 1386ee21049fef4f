"""The project's management commands explain every option they take in their --help."""
from __future__ import annotations

import pytest
from django.core.management import get_commands, load_command_class
from django.core.management.base import BaseCommand

PROJECT_APPS = ("annotation", "ranking", "gecappraise")
#: Django's own options of every command (--verbosity, --settings, ...), which Django explains.
DJANGOS = {action.dest for action in BaseCommand().create_parser("manage.py", "command")._actions}
COMMANDS = sorted((name, app) for name, app in get_commands().items() if app in PROJECT_APPS)


@pytest.mark.parametrize(("name", "app"), COMMANDS, ids=[name for name, _ in COMMANDS])
def test_every_option_of_a_command_has_a_help_text(name, app):
    """``import_outputs --help`` listed ``--mode {ranking,prws}`` without a word on what the modes are."""
    parser = load_command_class(app, name).create_parser("manage.py", name)
    unexplained = [action.option_strings[0] for action in parser._actions
                   if action.option_strings and action.dest not in DJANGOS and not action.help]
    assert unexplained == []


def test_the_contracts_commands_are_there():
    assert {name for name, _ in COMMANDS} >= {
        "import_outputs", "import_appraise_xml", "export_appraise_xml", "import_scores", "import_references",
        "score_metrics", "export_report", "analyze",
    }
