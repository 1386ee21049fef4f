"""One-time invite links: who may create them, for whom, and that a link works once and only while valid."""
from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from annotation.models import Invite
from annotation.services.invites import InviteError, create_invite, digest, find_invite, redeem_invite

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
    with pytest.raises(InviteError, match="only for judges"):
        create_invite(campaign, "target", organizer)
    assert not Invite.objects.exists()


def test_an_organizer_cannot_invite_another_campaigns_judge(campaign, organizer):
    other = small_campaign("other")
    judge("theirs", other)
    with pytest.raises(InviteError, match="campaign you do not manage"):
        create_invite(campaign, "theirs", organizer)
    admin = User.objects.create_superuser("root", password="root-password-1")
    assert create_invite(campaign, "theirs", admin)[0].judge.username == "theirs"


@pytest.mark.parametrize("username", ["", " ", "has space", "x" * 151, "semi;colon"])
def test_bad_usernames_are_refused(campaign, organizer, username):
    with pytest.raises(InviteError):
        create_invite(campaign, username, organizer)
    assert not Invite.objects.exists()
