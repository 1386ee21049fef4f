"""Logins are throttled (django-axes), and password reset by e-mail exists only where e-mail can be sent."""
from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client, override_settings

#: Fast hashing: these tests log in and fail dozens of times.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fast_passwords")]


@pytest.fixture
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

LOGIN = "/accounts/login/"


def log_in(client: Client, username: str, password: str):
    return client.post(LOGIN, {"username": username, "password": password})


@override_settings(AXES_ENABLED=True, AXES_FAILURE_LIMIT=3)
def test_a_username_is_locked_out_from_an_address_after_repeated_failures():
    User.objects.create_user("judge", password="right-password")
    User.objects.create_user("other", password="other-password")
    client = Client()
    for _ in range(2):
        assert log_in(client, "judge", "wrong").status_code == 200
    locked = log_in(client, "judge", "wrong")
    assert locked.status_code == 429 and "Too many failed logins" in locked.content.decode()
    assert log_in(client, "judge", "right-password").status_code == 429
    assert "_auth_user_id" not in client.session
    api = Client().get("/api/campaigns/", HTTP_AUTHORIZATION="Basic anVkZ2U6cmlnaHQtcGFzc3dvcmQ=")  # judge:right-…
    # django-axes refuses the locked-out username before the password is checked, so DRF's Basic authentication
    # reports the right password as invalid: a 403 (session authentication comes first and sends no challenge, so
    # not a 401). Let in, the judge would get 403 too but with IsOrganizer's message, hence the body.
    assert api.status_code == 403 and api.json() == {"detail": "Invalid username/password."}
    assert log_in(client, "other", "other-password").status_code == 302  # another username is not locked
    elsewhere = Client(REMOTE_ADDR="192.0.2.7")
    assert log_in(elsewhere, "judge", "right-password").status_code == 302


@override_settings(AXES_ENABLED=True, AXES_FAILURE_LIMIT=3, TRUSTED_PROXY_COUNT=1)
def test_behind_a_proxy_the_client_address_counts_not_the_proxys():
    """Behind one TLS proxy every request comes from the proxy: counting its address, anyone's failures would lock
    the real user out. Entries a client puts in X-Forwarded-For itself (left of the proxy's) prove nothing."""
    User.objects.create_user("judge", password="right-password")
    attacker = Client(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="192.0.2.50")
    for _ in range(3):
        log_in(attacker, "judge", "wrong")
    assert log_in(attacker, "judge", "right-password").status_code == 429
    spoofing = Client(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="198.51.100.9, 192.0.2.50")
    assert log_in(spoofing, "judge", "right-password").status_code == 429, "the proxy's entry is the one counted"
    user = Client(REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="203.0.113.4")
    assert log_in(user, "judge", "right-password").status_code == 302


def change_password(client: Client, old: str):
    return client.post("/judge/password/", {"old_password": old, "new_password1": "Zx9-long-pass",
                                            "new_password2": "Zx9-long-pass"})


@override_settings(AXES_ENABLED=True, AXES_FAILURE_LIMIT=3)
@pytest.mark.parametrize("page", ["judge", "admin"])
def test_guessing_the_old_password_on_a_password_page_is_throttled_as_logins_are(page):
    """The judge's and the admin's password pages checked the old password with check_password, which nothing
    counts: a signed-in session (a stolen one) could guess the account's password without limit. Their failures now
    count as failed logins of the account."""
    make, change, refused_status = {
        "judge": (User.objects.create_user, change_password, 400),
        "admin": (User.objects.create_superuser, change_admin_password, 200),
    }[page]
    make("someone", password="right-password")
    client = Client()
    assert log_in(client, "someone", "right-password").status_code == 302
    for _ in range(2):
        refused = change(client, "wrong")
        assert refused.status_code == refused_status
        assert "Your old password was entered incorrectly." in refused.content.decode()
    assert change(client, "wrong").status_code == 429
    assert change(client, "right-password").status_code == 429
    assert User.objects.get(username="someone").check_password("right-password")
    assert log_in(Client(), "someone", "right-password").status_code == 429, "the login is locked out too"


def test_the_right_old_password_changes_it():
    User.objects.create_user("judge", password="right-password")
    client = Client()
    assert log_in(client, "judge", "right-password").status_code == 302
    assert change_password(client, "right-password").status_code == 302
    assert User.objects.get(username="judge").check_password("Zx9-long-pass")
    assert client.get("/judge/password/").status_code == 200, "still signed in"


@pytest.mark.parametrize(("password", "message"), [
    ("password", "This password is too common."),
    ("judgeb12", "too similar to the username"),
    ("7349120584", "This password is entirely numeric."),
    ("short", "This password is too short."),
])
def test_weak_passwords_are_refused(password, message):
    user = User.objects.create_user("judgeb")
    client = Client()
    client.force_login(user)
    response = client.post("/judge/password/", {"new_password1": password, "new_password2": password})
    assert response.status_code == 400 and message in response.content.decode().replace("&#x27;", "'")
    user.refresh_from_db()
    assert not user.has_usable_password()


@override_settings(AXES_ENABLED=True, AXES_FAILURE_LIMIT=3)
def test_a_successful_login_resets_the_count():
    User.objects.create_user("judge", password="right-password")
    client = Client()
    for _ in range(2):
        log_in(client, "judge", "wrong")
    assert log_in(client, "judge", "right-password").status_code == 302
    client.logout()
    for _ in range(2):
        assert log_in(client, "judge", "wrong").status_code == 200
    assert log_in(client, "judge", "right-password").status_code == 302


@override_settings(PASSWORD_RESET_ENABLED=False)
def test_without_email_there_is_no_password_reset():
    client = Client()
    assert "password_reset" not in client.get(LOGIN).content.decode()
    for url in ("/accounts/password_reset/", "/accounts/password_reset/done/", "/accounts/reset/done/",
                "/accounts/reset/MQ/set-password/"):
        assert client.get(url).status_code == 404
    assert client.post("/accounts/password_reset/", {"email": "a@example.org"}).status_code == 404


@override_settings(PASSWORD_RESET_ENABLED=True, EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend")
def test_with_email_the_reset_link_is_sent_and_sets_a_new_password():
    User.objects.create_user("judge", email="judge@example.org", password="old-password")
    client = Client()
    assert 'href="/accounts/password_reset/"' in client.get(LOGIN).content.decode()
    assert client.post("/accounts/password_reset/", {"email": "judge@example.org"}).status_code == 302
    (message,) = mail.outbox
    link = re.search(r"https?://[^/]+(/accounts/reset/\S+/)", message.body).group(1)
    form = client.get(link, follow=True)
    assert form.status_code == 200 and "Set a new password" in form.content.decode()
    done = client.post(
        form.redirect_chain[-1][0], {"new_password1": "brand-new-pass", "new_password2": "brand-new-pass"}
    )
    assert done.status_code == 302
    assert User.objects.get(username="judge").check_password("brand-new-pass")


def change_admin_password(client: Client, old: str):
    return client.post("/admin/password_change/", {"old_password": old, "new_password1": "Zx9-long-pass",
                                                   "new_password2": "Zx9-long-pass"})


def test_the_admin_password_page_changes_the_password_with_the_right_old_one():
    User.objects.create_superuser("root", password="right-password")
    client = Client()
    assert log_in(client, "root", "right-password").status_code == 302
    page = client.get("/admin/password_change/")
    assert page.status_code == 200 and 'name="old_password"' in page.content.decode()
    assert change_admin_password(client, "right-password")["Location"] == "/admin/password_change/done/"
    assert User.objects.get(username="root").check_password("Zx9-long-pass")
    assert client.get("/admin/").status_code == 200, "still signed in"
