"""The models and their migrations say the same: a model change without its migration would reach a database that
lacks it (a column, a constraint) only at deploy time."""
from io import StringIO

import pytest
from django.core.management import call_command


@pytest.mark.django_db
def test_every_model_change_has_its_migration():
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)
    assert "No changes detected" in out.getvalue()
