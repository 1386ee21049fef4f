"""One-time invite links: who may create them, for whom, and that a link works once and only while valid."""
from __future__ import annotations

import html
import re
from datetime import timedelta
from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotation.models import Invite
from annotation.permissions import ORGANIZERS_GROUP
from annotation.services.invites import (
    InviteError,
    LoginRequired,
    create_invite,
    digest,
    find_invite,
    link_logs_in,
    redeem_invite,
)

from .factories import judge, small_campaign

pytestmark = pytest.mark.django_db
User = get_user_model()


@pytest.fixture
def organizer():
    return User.objects.create_user("orga", password="organizer-pw-1")


@pytest.fixture
def campaign(organizer):
    campaign = small_campaign()
    campaign.organizers.add(organizer)
    return campaign


def test_an_invite_creates_the_judge_and_stores_only_a_digest(campaign, organizer):
    invite, secret = create_invite(campaign, "newbie", organizer)
    assert len(secret) >= 40
    assert invite.digest == digest(secret) and secret not in invite.digest
    assert not User.objects.get(username="newbie").has_usable_password()
    assert not campaign.judges.filter(username="newbie").exists(), "joining happens when the link is used"


def test_a_link_works_once(campaign, organizer):
    _, secret = create_invite(campaign, "newbie", organizer)
    now = timezone.now()
    assert find_invite(secret, now).judge.username == "newbie"
    used = redeem_invite(secret, now)
    assert used.used_at == now and campaign.judges.filter(username="newbie").exists()
    with pytest.raises(InviteError, match="used already"):
        redeem_invite(secret)
    with pytest.raises(InviteError, match="not valid"):
        redeem_invite(secret[:-1])


def test_a_link_expires(campaign, organizer):
    _, secret = create_invite(campaign, "newbie", organizer, valid_for=timedelta(hours=1))
    with pytest.raises(InviteError, match="expired"):
        redeem_invite(secret, timezone.now() + timedelta(hours=2))
    assert Invite.objects.get().used_at is None


def test_a_refused_link_offers_your_campaigns_only_to_someone_logged_in(campaign, organizer):
    """The refusal of a used link offered a stranger "Your campaigns", which only led to the login page; it is
    offered to someone logged in, who has such a page."""
    _, secret = create_invite(campaign, "newbie", organizer)
    url = reverse("invite", args=[secret])
    assert Client().post(url).status_code == 302
    way = f'<a href="{reverse("home")}">Your campaigns</a>'
    stranger = Client().get(url)
    assert stranger.status_code == 410 and "has been used already" in stranger.content.decode()
    assert "Your campaigns" not in stranger.content.decode()
    logged_in = Client()
    logged_in.force_login(organizer)
    refused = logged_in.get(url)
    assert refused.status_code == 410 and way in refused.content.decode()


def test_only_the_campaigns_organizers_invite(campaign):
    stranger = User.objects.create_user("stranger")
    with pytest.raises(PermissionDenied):
        create_invite(campaign, "newbie", stranger)
    admin = User.objects.create_superuser("root", password="root-password-1")
    assert create_invite(campaign, "newbie", admin)[0].judge.username == "newbie"


@pytest.mark.parametrize("kind", ["staff", "superuser", "organizer"])
def test_invites_never_log_in_as_staff_or_organizers(campaign, organizer, kind):
    target = User.objects.create_user("target", is_staff=kind == "staff", is_superuser=kind == "superuser")
    if kind == "organizer":
        small_campaign("other").organizers.add(target)
    with pytest.raises(InviteError, match="^'target' cannot be used; choose another name.$"):
        create_invite(campaign, "target", organizer)
    admin = User.objects.create_superuser("root", password="root-password-1")
    with pytest.raises(InviteError, match="'target' is a staff or organizer account; invite links are only for judges"):
        create_invite(campaign, "target", admin)
    assert not Invite.objects.exists()


def test_an_organizer_cannot_invite_another_campaigns_judge(campaign, organizer):
    other = small_campaign("other")
    judge("theirs", other)
    with pytest.raises(InviteError, match="^'theirs' cannot be used; choose another name.$"):
        create_invite(campaign, "theirs", organizer)
    admin = User.objects.create_superuser("root", password="root-password-1")
    assert create_invite(campaign, "theirs", admin)[0].judge.username == "theirs"


def test_an_organizer_cannot_take_over_the_account_another_organizer_invited(campaign, organizer):
    """The account an invite made has no password: a second organizer's link would log in as it, and the judge
    the first organizer invited could then not accept their own invite."""
    other_organizer = User.objects.create_user("otto", password="otto-password-1")
    other = small_campaign("other")
    other.organizers.add(other_organizer)
    create_invite(other, "fresh", other_organizer)
    with pytest.raises(InviteError, match="^'fresh' cannot be used; choose another name.$"):
        create_invite(campaign, "fresh", organizer)
    assert list(Invite.objects.values_list("campaign__name", flat=True)) == ["other"]


def error_messages(page: str) -> list[str]:
    return [html.unescape(text) for text in re.findall(r'<li class="error">(.*?)</li>', page)]


def test_the_page_tells_an_organizer_the_same_for_every_username_they_cannot_invite(campaign, organizer):
    """Whether the username is another organizer's judge, an organizer's or a staff account, or the name of an
    account another organizer invited (not yet used): one message, that does not say which (or that it exists)."""
    other_organizer = User.objects.create_user("otto", password="otto-password-1")
    other = small_campaign("other")
    other.organizers.add(other_organizer)
    judge("their-judge", other, password="their-password-1")
    User.objects.create_user("staffer", password="staff-password-1", is_staff=True)
    User.objects.create_superuser("root", password="root-password-1")
    create_invite(other, "pending", other_organizer)
    client = Client()
    client.force_login(organizer)
    said = {}
    for username in ("their-judge", "otto", "staffer", "root", "pending"):
        page = client.post(reverse("campaign-invite", args=[campaign.pk]), {"username": username, "valid_days": 14},
                           follow=True).content.decode()
        (message,) = error_messages(page)
        said[username] = message.replace(repr(username), "NAME")
    assert set(said.values()) == {"NAME cannot be used; choose another name. No invite was created."}, said
    assert list(Invite.objects.values_list("judge__username", flat=True)) == ["pending"]


@pytest.mark.parametrize("username", ["", " ", "has space", "x" * 151, "semi;colon"])
def test_bad_usernames_are_refused(campaign, organizer, username):
    with pytest.raises(InviteError):
        create_invite(campaign, username, organizer)
    assert not Invite.objects.exists()


# Issue 7, item 1: an invite link logs in only an account the invite may speak for (a judge-only account without a
# usable password, all of whose campaigns the inviter manages); any other account logs in itself, then accepts.

def organizers_group_member(username: str, password: str | None = None):
    user = User.objects.create_user(username, password=password)
    user.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    return user


@pytest.fixture(params=["password", "organizers-group", "organizers-group-with-password"])
def own_account(request):
    """An existing account that must log in with its own credentials to accept an invite."""
    if request.param == "password":
        return User.objects.create_user("pat", password="pat-password-1")
    return organizers_group_member("pat", "pat-password-1" if request.param.endswith("password") else None)


def session_user(client: Client):
    return client.get(reverse("home")).wsgi_request.user


def test_a_link_does_not_log_in_an_account_with_its_own_credentials(campaign, organizer, own_account):
    invite, secret = create_invite(campaign, "pat", organizer)
    assert not link_logs_in(invite)
    url = reverse("invite", args=[secret])
    client = Client()
    page = client.get(url)
    assert page.status_code == 200 and b"Continue as" not in page.content
    assert f'{reverse("login")}?next={url}'.encode() in page.content, "the page asks to log in and comes back"
    posted = client.post(url)
    assert posted.status_code == 302 and posted["Location"] == f"{reverse('login')}?next={url}"
    assert not session_user(client).is_authenticated
    assert Invite.objects.get().used_at is None and not campaign.judges.filter(pk=own_account.pk).exists()

    other = judge("someone", campaign, password="someone-pw-1")
    someone = Client()
    someone.force_login(other)
    assert b"Log in as pat" in someone.get(url).content
    refused = someone.post(url)
    assert refused.status_code == 403 and b"log in as pat" in refused.content
    assert session_user(someone) == other and Invite.objects.get().used_at is None

    if own_account.has_usable_password():
        back = client.post(reverse("login"), {"username": "pat", "password": "pat-password-1", "next": url})
        assert back.status_code == 302 and back["Location"] == url, "the login page returns to the invite"
    else:
        client.force_login(own_account)
    assert b"Accept" in client.get(url).content
    accepted = client.post(url)
    assert accepted.status_code == 302 and accepted["Location"] == reverse("judge-campaign", args=[campaign.pk])
    assert session_user(client) == own_account
    assert Invite.objects.get().used_at is not None and campaign.judges.filter(pk=own_account.pk).exists()


def test_the_rule_holds_when_the_account_changes_after_the_invite(campaign, organizer):
    invite, secret = create_invite(campaign, "newbie", organizer)
    assert link_logs_in(invite)
    newbie = invite.judge
    newbie.set_password("chosen-later-1")
    newbie.save()
    assert not link_logs_in(Invite.objects.get())
    with pytest.raises(LoginRequired, match="log in as newbie"):
        redeem_invite(secret)
    assert redeem_invite(secret, user=newbie).used_at is not None
    second, secret = create_invite(campaign, "fresh", organizer)
    second.judge.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    with pytest.raises(LoginRequired):
        redeem_invite(secret)


def test_a_link_does_not_log_in_a_judge_of_a_campaign_its_inviter_does_not_manage(campaign, organizer):
    """Our link, made before bob joined another organizer's campaign (by an admin's invite: admins may invite
    anyone), no longer logs bob in: it asks bob to log in first."""
    _, ours = create_invite(campaign, "bob", organizer)
    other_organizer = User.objects.create_user("olaf", password="olaf-password-1")
    other = small_campaign("other")
    other.organizers.add(other_organizer)
    admin = User.objects.create_superuser("root", password="root-password-1")
    _, theirs = create_invite(other, "bob", admin)
    redeem_invite(theirs)
    with pytest.raises(LoginRequired):
        redeem_invite(ours)
    bob = User.objects.get(username="bob")
    assert not campaign.judges.filter(pk=bob.pk).exists()
    assert redeem_invite(ours, user=bob).campaign == campaign


def test_someone_else_logged_in_cannot_accept_for_the_judge(campaign, organizer):
    invite, secret = create_invite(campaign, "pat-2", organizer)
    invite.judge.set_password("pat-password-2")
    invite.judge.save()
    with pytest.raises(InviteError, match="You are logged in as orga") as refused:
        redeem_invite(secret, user=organizer)
    assert not isinstance(refused.value, LoginRequired)
    assert Invite.objects.get(judge__username="pat-2").used_at is None


@pytest.mark.parametrize("kind", ["password", "organizers-group"])
def test_invite_command_links_ask_own_accounts_to_log_in(campaign, organizer, kind):
    if kind == "password":
        User.objects.create_user("pat", password="pat-password-1")
    else:
        organizers_group_member("pat")
    out, err = StringIO(), StringIO()
    call_command("invite", "--campaign", "small", "--by", "orga", "pat", "fresh", stdout=out, stderr=err)
    links = dict(line.split("\t") for line in out.getvalue().splitlines())
    assert set(links) == {"pat", "fresh"}
    assert "pat: an existing account; its link asks to log in as pat first" in err.getvalue()
    assert "fresh" not in err.getvalue()
    path = links["pat"].removeprefix("http://127.0.0.1:8000")
    client = Client()
    assert client.post(path)["Location"] == f"{reverse('login')}?next={path}"
    assert not session_user(client).is_authenticated
    assert not campaign.judges.filter(username="pat").exists()
    fresh = Client()
    fresh.post(links["fresh"].removeprefix("http://127.0.0.1:8000"))
    assert session_user(fresh).username == "fresh"


def test_the_campaign_page_says_when_a_link_asks_to_log_in(campaign, organizer):
    """To an admin, who sees every account anyway; an organizer reads the same for an existing account as for a
    new one (the page's hint says that an account with a password logs in first)."""
    User.objects.create_user("pat", password="pat-password-1")
    admin = Client()
    admin.force_login(User.objects.create_superuser("root", password="root-password-1"))
    page = admin.post(reverse("campaign-invite", args=[campaign.pk]), {"username": "pat", "valid_days": 14},
                      follow=True).content.decode()
    assert "Invited pat." in page
    assert "pat is an existing account: the link asks them to log in with their own password first." in page
    fresh = admin.post(reverse("campaign-invite", args=[campaign.pk]), {"username": "fresh", "valid_days": 14},
                       follow=True).content.decode()
    assert "Invited fresh." in fresh and "fresh is an existing account" not in fresh

    client = Client()
    client.force_login(organizer)
    said = {}
    for username in ("pat", "newcomer"):
        page = client.post(reverse("campaign-invite", args=[campaign.pk]), {"username": username, "valid_days": 14},
                           follow=True).content.decode()
        said[username] = [html.unescape(text).replace(username, "NAME")
                          for text in re.findall(r'<ul class="messages">(.*?)</ul>', page)]
    assert said["pat"] == said["newcomer"] == [
        '<li class="success">Invited NAME. Copy the link now: it is shown only once.</li>'], said
    assert "An existing account with a password of its own, or an organizer's, logs in with it" in page
