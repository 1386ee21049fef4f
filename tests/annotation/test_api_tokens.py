"""API tokens: who may make them (page and command), the page showing a new token once, revoking, the cap per user,
and what the API answers to a good, wrong, expired or revoked token and to the token of someone who lost the
organizer role."""
from __future__ import annotations

import base64
import re
from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth.models import Group, User
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client, override_settings
from django.utils import timezone

from annotation.models import ApiToken, Campaign
from annotation.permissions import ORGANIZERS_GROUP
from annotation.services import api_tokens

from .factories import judge, small_campaign
from .test_api_schema import check, schema  # noqa: F401  (schema: the module's fixture)

pytestmark = pytest.mark.django_db

NEW_KEY = re.compile(r'id="new-token-key" value="([0-9a-f]{64})"')


@pytest.fixture
def people() -> dict[str, User]:
    """An organizer (of the group, managing the campaign "mine"), an admin, a judge of "mine" and a user with no
    role."""
    organizer = User.objects.create_user("olga", password="olga-password")
    organizer.groups.add(Group.objects.create(name=ORGANIZERS_GROUP))
    campaign = small_campaign("mine", owner=organizer)
    admin = User.objects.create_superuser("root", password="root-password")
    return {"organizer": organizer, "admin": admin, "judge": judge("jude", campaign),
            "nobody": User.objects.create_user("nora", password="nora-password")}


def signed_in(user: User, **options) -> Client:
    client = Client(**options)
    client.force_login(user)
    return client


def api_get(key: str, path: str = "/api/campaigns/"):
    """``path`` requested with the token ``key`` only (no session)."""
    return Client().get(path, HTTP_AUTHORIZATION=f"Token {key}")


def test_a_token_authenticates_api_requests_as_its_user_without_a_session(people, schema):  # noqa: F811
    token, key = api_tokens.create_token(people["organizer"], "poller")
    response = api_get(key)
    assert response.status_code == 200
    check(schema, "/api/campaigns/", "get", response)
    assert [campaign["name"] for campaign in response.json()] == ["mine"]
    # A token is not a browser's session: a POST needs no CSRF token (the request is refused here for its empty
    # body, 400, not for CSRF, 403).
    posted = Client(enforce_csrf_checks=True).post("/api/campaigns/", {}, HTTP_AUTHORIZATION=f"Token {key}")
    assert posted.status_code == 400, posted.content
    # Only the digest and the first characters are stored.
    stored = ApiToken.objects.get()
    assert stored.digest != key and key not in stored.digest and stored.token_key == key[:15]
    assert stored.name == "poller" and stored.user == people["organizer"]


def test_a_token_lives_api_token_days_from_its_creation_and_use_does_not_extend_it(people):
    before = timezone.now()
    token, key = api_tokens.create_token(people["organizer"])
    assert before + timedelta(days=90) <= token.expiry <= timezone.now() + timedelta(days=90)
    assert api_get(key).status_code == 200
    token.refresh_from_db()
    assert token.expiry <= before + timedelta(days=90, seconds=5)


@pytest.mark.parametrize("case", ["wrong", "expired", "revoked", "no key", "two words"])
def test_a_wrong_expired_or_revoked_token_is_a_401_with_a_json_detail(people, schema, case):  # noqa: F811
    token, key = api_tokens.create_token(people["organizer"])
    header = f"Token {key}"
    if case == "wrong":
        header = f"Token {key[:-1]}{'0' if key[-1] != '0' else '1'}"
    elif case == "expired":
        ApiToken.objects.filter(pk=token.pk).update(expiry=timezone.now() - timedelta(seconds=1))
    elif case == "revoked":
        assert api_tokens.revoke_token(people["organizer"], token.digest) is not None
    elif case == "no key":
        header = "Token"
    else:
        header = f"Token {key} {key}"
    response = Client().get("/api/campaigns/", HTTP_AUTHORIZATION=header)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert set(response.json()) == {"detail"} and response.json()["detail"]
    check(schema, "/api/campaigns/", "get", response)
    if case == "expired":
        assert not ApiToken.objects.filter(pk=token.pk).exists(), "knox deletes an expired token when it meets it"


@pytest.mark.parametrize("separator", ["\t", "  ", " \t "])
def test_the_token_scheme_is_parted_from_its_key_by_any_white_space_as_knox_reads_it(people, separator):
    # "Token<TAB>KEY" was read as no token at all, and refused as a request without credentials (403), while knox,
    # which reads the header, parts it at any white space.
    token, key = api_tokens.create_token(people["organizer"])
    assert Client().get("/api/campaigns/", HTTP_AUTHORIZATION=f"Token{separator}{key}").status_code == 200
    wrong = Client().get("/api/campaigns/", HTTP_AUTHORIZATION=f"Token{separator}{'0' * 64}")
    assert wrong.status_code == 401 and wrong["WWW-Authenticate"] == "Token"


def test_without_a_token_the_api_answers_as_before_and_basic_auth_still_works(people):
    assert Client().get("/api/campaigns/").status_code == 403
    basic = base64.b64encode(b"olga:olga-password").decode()
    assert Client().get("/api/campaigns/", HTTP_AUTHORIZATION=f"Basic {basic}").status_code == 200
    wrong = base64.b64encode(b"olga:not-her-password").decode()
    assert Client().get("/api/campaigns/", HTTP_AUTHORIZATION=f"Basic {wrong}").status_code == 403
    assert signed_in(people["organizer"]).get("/api/campaigns/").status_code == 200


@pytest.mark.parametrize("username", [b"ol\x00ga", b"o" * 256, b"o" * 151])
def test_basic_auth_refuses_a_username_that_cannot_be_one_as_a_wrong_password(people, username):
    # The login throttling (django-axes) looked the attempt's username up in its own table: a NUL, which PostgreSQL's
    # text cannot hold, and a name over its 255 characters were a DataError, a 500.
    basic = base64.b64encode(username + b":olga-password").decode()
    response = Client().get("/api/campaigns/", HTTP_AUTHORIZATION=f"Basic {basic}")
    assert response.status_code == 403 and response.json() == {"detail": "Invalid username/password."}
    assert Client().get("/api/campaigns/", HTTP_AUTHORIZATION="Basic " + base64.b64encode(
        b"olga:olga-password").decode()).status_code == 200


def test_a_token_of_someone_who_no_longer_organizes_reaches_no_organizer_endpoint(people):
    organizer = people["organizer"]
    helper = User.objects.create_user("hugo")
    helper.groups.add(Group.objects.get(name=ORGANIZERS_GROUP))
    campaign = Campaign.objects.get(name="mine")
    campaign.organizers.add(helper)
    _, key = api_tokens.create_token(helper)
    assert api_get(key, f"/api/campaigns/{campaign.pk}/").status_code == 200
    campaign.organizers.remove(helper)
    assert api_get(key, f"/api/campaigns/{campaign.pk}/").status_code == 404
    assert api_get(key).json() == []
    call_command("organizer", "--remove", "hugo", stdout=StringIO())
    refused = api_get(key)
    assert refused.status_code == 403 and "detail" in refused.json()
    assert api_get(key, f"/api/campaigns/{campaign.pk}/").status_code == 403
    # The organizer's own token is untouched.
    _, own = api_tokens.create_token(organizer)
    assert api_get(own).status_code == 200


def test_a_former_organizer_sees_and_revokes_the_tokens_left_but_makes_none(people):
    # The page was closed to them, so a token that would work again if the role came back could not be ended.
    helper = User.objects.create_user("hugo")
    helper.groups.add(Group.objects.get(name=ORGANIZERS_GROUP))
    first, _ = api_tokens.create_token(helper, "cron")
    _, key = api_tokens.create_token(helper, "poller")
    call_command("organizer", "--remove", "hugo", stdout=StringIO())
    client = signed_in(helper)
    page = client.get("/accounts/api-tokens/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "You no longer organize a campaign" in html and 'id="new-token-form"' not in html
    assert html.count('aria-label="Revoke the token') == 2, "a Revoke button for each token"
    assert client.post("/accounts/api-tokens/new/", {"name": "again"}).status_code == 403
    assert client.post("/accounts/api-tokens/revoke/", {"token": first.digest}).url == "/accounts/api-tokens/"
    assert list(ApiToken.objects.values_list("name", flat=True)) == ["poller"]
    helper.groups.add(Group.objects.get(name=ORGANIZERS_GROUP))
    assert api_get(key).status_code == 200, "the role back, the token left works again"
    helper.groups.clear()
    # The last one revoked, the page closes again: the answer goes to the start page, with the message.
    done = client.post("/accounts/api-tokens/revoke-all/", follow=True)
    assert done.redirect_chain[0] == ("/", 302)
    assert "Revoked all your API tokens (1)" in done.content.decode()
    assert not ApiToken.objects.exists() and client.get("/accounts/api-tokens/").status_code == 403


def test_an_inactive_users_token_is_refused(people):
    _, key = api_tokens.create_token(people["organizer"])
    User.objects.filter(pk=people["organizer"].pk).update(is_active=False)
    assert api_get(key).status_code == 401


@pytest.mark.parametrize("role", ["judge", "nobody"])
def test_judges_and_users_without_a_role_get_no_token(people, role):
    client = signed_in(people[role])
    page = client.get("/accounts/api-tokens/")
    assert page.status_code == 403
    assert "Your account may not open this page" in page.content.decode()
    assert "API tokens are for organizers and admins" in page.content.decode()
    for path in ("/accounts/api-tokens/new/", "/accounts/api-tokens/revoke-all/"):
        assert client.post(path, {"name": "x"}).status_code == 403
    assert not ApiToken.objects.exists()
    with pytest.raises(CommandError, match="only organizers and admins use the API"):
        call_command("api_token", people[role].username, stdout=StringIO(), stderr=StringIO())
    with pytest.raises(api_tokens.TokenRefused):
        api_tokens.create_token(people[role])
    assert not ApiToken.objects.exists()
    assert "API tokens" not in client.get("/judge/").content.decode()


def test_the_page_is_for_signed_in_users_and_changes_only_by_post_with_csrf(people):
    assert Client().get("/accounts/api-tokens/")["Location"].startswith("/accounts/login/")
    organizer = signed_in(people["organizer"])
    assert organizer.get("/accounts/api-tokens/new/").status_code == 405
    assert organizer.post("/accounts/api-tokens/").status_code == 405
    strict = signed_in(people["organizer"], enforce_csrf_checks=True)
    assert strict.post("/accounts/api-tokens/new/", {"name": "x"}).status_code == 403
    assert not ApiToken.objects.exists()


@pytest.mark.parametrize("role", ["organizer", "admin"])
def test_the_page_shows_a_new_token_once_with_how_to_use_it(people, role):
    client = signed_in(people[role])
    assert 'href="/accounts/api-tokens/">API tokens</a>' in client.get("/campaigns/").content.decode()
    assert "You have no API token." in client.get("/accounts/api-tokens/").content.decode()
    made = client.post("/accounts/api-tokens/new/", {"name": "progress poller"}, follow=True)
    html = made.content.decode()
    assert made.redirect_chain == [("/accounts/api-tokens/", 302)]
    key = NEW_KEY.search(html).group(1)
    assert "Copy it now: it is shown only once." in html
    assert f'curl -H "Authorization: Token {key}" http://testserver/api/campaigns/' in html
    token = ApiToken.objects.get()
    assert token.name == "progress poller" and token.user == people[role]
    assert f"<code>{token.token_key}…</code>" in html and "progress poller" in html
    assert api_get(key).status_code == 200
    again = client.get("/accounts/api-tokens/").content.decode()
    assert key not in again and NEW_KEY.search(again) is None
    assert f"<code>{token.token_key}…</code>" in again and token.expiry.strftime("%Y-%m-%d") in again


def test_the_page_is_never_stored_by_a_browser_or_proxy(people):
    # The page that shows a new token had no Cache-Control: a browser could keep it, the token with it, on disk and
    # show it again from its history after "shown only once".
    client = signed_in(people["organizer"])
    shown = client.post("/accounts/api-tokens/new/", {"name": "x"}, follow=True)
    assert NEW_KEY.search(shown.content.decode()) is not None
    assert "no-store" in shown["Cache-Control"] and "private" in shown["Cache-Control"]
    assert "no-store" in client.get("/accounts/api-tokens/")["Cache-Control"]


def test_a_bad_name_makes_no_token(people):
    client = signed_in(people["organizer"])
    for name in ("tab\there", "x" * 101):
        page = client.post("/accounts/api-tokens/new/", {"name": name}, follow=True).content.decode()
        assert "No token was made." in page and NEW_KEY.search(page) is None
    assert not ApiToken.objects.exists()


def test_revoke_one_and_revoke_all(people):
    client = signed_in(people["organizer"])
    first, first_key = api_tokens.create_token(people["organizer"], "one")
    second, second_key = api_tokens.create_token(people["organizer"], "two")
    others, others_key = api_tokens.create_token(people["admin"], "admin's")
    page = client.post("/accounts/api-tokens/revoke/", {"token": first.digest}, follow=True).content.decode()
    assert f"Revoked the token {first.token_key}… (one); it no longer works." in page
    assert api_get(first_key).status_code == 401 and api_get(second_key).status_code == 200
    # Someone else's token, and a malformed one, are not found among the user's: nothing is revoked.
    for digest in (others.digest, "not-a-digest"):
        page = client.post("/accounts/api-tokens/revoke/", {"token": digest}, follow=True).content.decode()
        assert "You have no such token" in page
    assert api_get(others_key).status_code == 200
    api_tokens.create_token(people["organizer"], "three")
    page = client.post("/accounts/api-tokens/revoke-all/", follow=True).content.decode()
    assert "Revoked all your API tokens (2); none of them works any more." in page
    assert "You have no API token." in page
    assert api_get(second_key).status_code == 401
    assert list(ApiToken.objects.values_list("name", flat=True)) == ["admin's"]


def test_a_user_holds_at_most_api_tokens_per_user_unexpired_tokens(people):
    with override_settings(REST_KNOX={"TOKEN_TTL": timedelta(days=90), "TOKEN_LIMIT_PER_USER": 2,
                                      "AUTO_REFRESH": False}):
        client = signed_in(people["organizer"])
        first, _ = api_tokens.create_token(people["organizer"])
        api_tokens.create_token(people["organizer"])
        page = client.post("/accounts/api-tokens/new/", {"name": "third"}, follow=True).content.decode()
        assert "already has 2 API tokens, the most allowed (API_TOKENS_PER_USER): revoke one first." in page
        assert "No token was made." in page and NEW_KEY.search(page) is None
        with pytest.raises(CommandError, match="revoke one first"):
            call_command("api_token", "olga", stdout=StringIO(), stderr=StringIO())
        assert ApiToken.objects.count() == 2
        # Another user's tokens do not count; an expired token does not either, and goes.
        api_tokens.create_token(people["admin"])
        ApiToken.objects.filter(pk=first.pk).update(expiry=timezone.now() - timedelta(minutes=1))
        page = client.post("/accounts/api-tokens/new/", {"name": "third"}, follow=True).content.decode()
        assert NEW_KEY.search(page) is not None
        assert not ApiToken.objects.filter(pk=first.pk).exists()
        assert ApiToken.objects.filter(user=people["organizer"]).count() == 2


def test_the_command_prints_a_working_token_and_revokes(people):
    out, err = StringIO(), StringIO()
    call_command("api_token", "olga", "--name", "cron", stdout=out, stderr=err)
    key = out.getvalue().strip()
    assert re.fullmatch(r"[0-9a-f]{64}", key) and "shown only once" in err.getvalue()
    assert api_get(key).status_code == 200
    assert ApiToken.objects.get().name == "cron"
    call_command("api_token", "root", stdout=StringIO(), stderr=StringIO())
    call_command("api_token", "olga", "--revoke", stdout=StringIO(), stderr=(err := StringIO()))
    assert "revoked every API token of olga (1 unexpired)" in err.getvalue()
    assert api_get(key).status_code == 401
    assert list(ApiToken.objects.values_list("user__username", flat=True)) == ["root"]
    with pytest.raises(CommandError, match="no account named 'ghost'"):
        call_command("api_token", "ghost", stdout=StringIO(), stderr=StringIO())
    for name in ("a\nb", "a\u2028b"):
        with pytest.raises(CommandError, match="--name: A token's name is one line"):
            call_command("api_token", "olga", "--name", name, stdout=StringIO(), stderr=StringIO())


@pytest.mark.parametrize("credential", ["\x00", "\xff\xfe", "é", "\xa0", "START\xe9", "START\x00", "z" * 64, "A" * 64,
                                        "0" * 63, "0" * 65, "0" * 100_000])
def test_a_token_that_cannot_be_one_is_a_401_before_any_lookup(people, credential):
    # A header's bytes arrive as Latin-1 (WSGI): a NUL reached PostgreSQL (DataError) and a byte that is not UTF-8
    # knox's decoding (UnicodeDecodeError), both a 500. START: a real token's first characters, which find its row.
    token, key = api_tokens.create_token(people["organizer"])
    credential = credential.replace("START", key[:15])
    response = Client(raise_request_exception=False).get("/api/campaigns/", HTTP_AUTHORIZATION=f"Token {credential}")
    assert response.status_code == 401, response.content[:200]
    assert response["WWW-Authenticate"] == "Token" and response.json() == {"detail": "Invalid token."}
    assert ApiToken.objects.filter(pk=token.pk).exists() and api_get(key).status_code == 200


def test_the_command_refuses_revoke_with_a_name_and_revokes_nothing(people):
    # "--revoke --name cron" read as "revoke the token cron" revoked every token of the account, the name ignored.
    api_tokens.create_token(people["organizer"], "cron")
    _, kept = api_tokens.create_token(people["organizer"], "poller")
    with pytest.raises(CommandError, match="--revoke revokes every token of olga; it takes no --name"):
        call_command("api_token", "olga", "--revoke", "--name", "cron", stdout=StringIO(), stderr=StringIO())
    assert ApiToken.objects.count() == 2 and api_get(kept).status_code == 200
