"""manage.py organizer: the way to make an organizer in a deployment (the role is membership of a group the
code names), checked before anything is changed."""
from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.core.management.base import CommandError

from annotation.permissions import ORGANIZERS_GROUP, organizes

pytestmark = pytest.mark.django_db


def organizer(*arguments: str) -> str:
    out = StringIO()
    call_command("organizer", *arguments, stdout=out)
    return out.getvalue()


def test_existing_and_new_accounts_become_organizers_and_the_role_can_be_taken_away():
    User.objects.create_user("olga", password="a long passphrase")
    said = organizer("olga", "oskar", "--no-input")
    assert said.splitlines() == ["olga is an organizer", "oskar is an organizer (account made, without a password)"]
    olga, oskar = User.objects.get(username="olga"), User.objects.get(username="oskar")
    assert organizes(olga) and organizes(oskar) and not oskar.has_usable_password()
    assert olga.check_password("a long passphrase")
    assert organizer("olga", "--remove") == "olga is no longer an organizer\n"
    assert not organizes(User.objects.get(username="olga")) and organizes(oskar)


def test_a_new_account_gets_the_password_typed_twice_and_validated(monkeypatch):
    typed = iter(["short", "short", "a long passphrase", "a typo", "a long passphrase", "a long passphrase"])
    monkeypatch.setattr("getpass.getpass", lambda prompt="": next(typed))
    err = StringIO()
    call_command("organizer", "pia", stdout=StringIO(), stderr=err)
    assert "too short" in err.getvalue() and "The passwords differ" in err.getvalue()
    assert User.objects.get(username="pia").check_password("a long passphrase")


@pytest.mark.parametrize(("arguments", "message"), [
    (["bad name!", "--no-input"], "username 'bad name!': Enter a valid username"),
    (["olga", "nobody", "--remove"], "no account named 'nobody'; nothing was changed"),
])
def test_bad_requests_change_nothing(arguments, message):
    User.objects.create_user("olga")
    Group.objects.create(name=ORGANIZERS_GROUP).user_set.add(User.objects.get(username="olga"))
    with pytest.raises(CommandError, match=message):
        organizer(*arguments)
    assert list(User.objects.values_list("username", flat=True)) == ["olga"]
    assert organizes(User.objects.get(username="olga"))


def test_a_new_account_without_a_terminal_to_type_its_password_is_refused_and_changes_nothing(monkeypatch):
    """Run from a script (standard input at its end), the password prompt ended in an EOFError traceback."""
    def ended(prompt=""):
        raise EOFError

    monkeypatch.setattr("getpass.getpass", ended)
    with pytest.raises(CommandError, match="no password for the new account 'pia': the input ended .* --no-input"):
        organizer("pia")
    assert not User.objects.exists() and not Group.objects.filter(name=ORGANIZERS_GROUP).exists()
