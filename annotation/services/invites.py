"""Judge accounts and one-time invite links (PRODUCT: a judge logs in with an account or a one-time link).

An organizer of a campaign creates an invite for a judge username; the account is created when it does not
exist (without a usable password: the link is the way in, and the judge may set a password afterwards). The
link carries a random secret of 256 bits; only its SHA-256 digest is stored, so the link is shown once.
Opening the link and confirming adds the judge to the campaign's judges; the link then stops working. It also
stops working after ``valid_for``.

The link itself logs the judge in only when ``judge_accounts.link_may_log_in`` allows it, checked when the link
is used: a judge-only account without a usable password all of whose campaigns the inviter manages (as an account
the invite created is). Any other account (one with a password, a member of the organizers group, ...) must be
logged in with its own credentials to accept the invite, so an invite never lets its creator act as someone else. Staff,
admins, organizers of a campaign and crowd workers' accounts (which judge their crowd campaign by its study link
alone) cannot be invited at all, and an organizer cannot invite a judge of, or anyone
invited to, a campaign they do not manage (whose link would then log in an account another organizer made for their
judge); admins can. An organizer who is not an admin is told only that such a username cannot be used
(``judge_accounts.UNUSABLE``), the same for every such account, so that invites do not tell what an account is (its
role, or whose judge it is; that it exists shows, since a new name is accepted); admins are told why. Two organizers
inviting the same new username at once make one account.
"""
from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.utils import timezone

from ..models import Campaign, Invite
from ..permissions import can_manage, managed_campaigns
from .judge_accounts import UNUSABLE, foreign_campaigns, is_crowd_worker, link_may_log_in, tells_reasons

#: How long an invite link works by default.
INVITE_VALIDITY = timedelta(days=14)


class InviteError(ValueError):
    """The invite cannot be created or used; the message says why."""


class LoginRequired(InviteError):
    """The invite is for an account that logs in with its own credentials first; nothing was changed."""

    def __init__(self, invite: Invite):
        self.invite = invite
        super().__init__(
            f"This invite is for the existing account {invite.judge.username}: log in as {invite.judge.username} "
            "to accept it."
        )


class UsedInvite(InviteError):
    """The invite was used already; ``invite`` is it (its judge, logged in, has nothing more to accept)."""

    def __init__(self, invite: Invite):
        self.invite = invite
        super().__init__(
            "This invite link has been used already. Log in with your account instead; if you set no password, ask "
            "the campaign's organizer for a new invite link."
        )


class WrongAccount(InviteError):
    """Someone other than the invite's judge is logged in and the link may not log the judge in."""


def digest(secret: str) -> str:
    """The stored form of an invite secret: its SHA-256 hex digest."""
    return hashlib.sha256(secret.encode()).hexdigest()


def _checked_judge(username: str, created_by: AbstractBaseUser) -> AbstractBaseUser:
    User = get_user_model()
    username = username.strip()
    if not username or len(username) > 150:
        raise InviteError("A username needs 1 to 150 characters.")
    try:
        UnicodeUsernameValidator()(username)
    except ValidationError:
        raise InviteError(
            f"{username!r} is not a valid username (letters, digits and @ . + - _ only)."
        ) from None
    # get_or_create: two organizers inviting one new username at once make one account (a plain create raised the
    # database's unique error for the later one).
    user, created = User.objects.get_or_create(username=username, defaults={"password": make_password(None)})
    if created:
        return user
    if user.is_staff or user.is_superuser or managed_campaigns(user).exists():
        if tells_reasons(created_by):
            raise InviteError(f"{username!r} is a staff or organizer account; invite links are only for judges.")
        raise InviteError(f"{username!r} {UNUSABLE}.")
    if is_crowd_worker(user):
        if tells_reasons(created_by):
            raise InviteError(f"{username!r} is a crowd worker's account; crowd workers judge by their study link.")
        raise InviteError(f"{username!r} {UNUSABLE}.")
    if foreign_campaigns(user, created_by).exists():
        raise InviteError(f"{username!r} {UNUSABLE}.")
    return user


def create_invite(
    campaign: Campaign,
    username: str,
    created_by: AbstractBaseUser,
    valid_for: timedelta = INVITE_VALIDITY,
    now: datetime | None = None,
) -> tuple[Invite, str]:
    """Create a one-time invite of ``username`` to ``campaign``; return it and the secret for its link.

    Raises PermissionDenied unless ``created_by`` manages the campaign, and InviteError for a username that
    may not be invited (see the module docstring).
    """
    if not can_manage(created_by, campaign):
        raise PermissionDenied("Only the campaign's organizers can invite judges.")
    if campaign.closed_at is not None:
        raise InviteError("The campaign is closed.")
    now = now or timezone.now()
    secret = secrets.token_urlsafe(32)
    with transaction.atomic():
        judge = _checked_judge(username, created_by)
        invite = Invite.objects.create(
            campaign=campaign, judge=judge, digest=digest(secret), created_by=created_by, expires_at=now + valid_for
        )
    return invite, secret


def _usable(invite: Invite | None, now: datetime) -> Invite:
    if invite is None:
        raise InviteError("This invite link is not valid. Check that you copied all of it.")
    if invite.used_at is not None:
        raise UsedInvite(invite)
    if invite.expires_at <= now:
        raise InviteError("This invite link has expired. Ask the organizer for a new one.")
    if invite.campaign.closed_at is not None:
        raise InviteError("This campaign is closed.")
    return invite


def find_invite(secret: str, now: datetime | None = None) -> Invite:
    """The usable invite with this secret; raise InviteError for an unknown, used or expired one."""
    invite = Invite.objects.select_related("campaign", "judge", "created_by").filter(digest=digest(secret)).first()
    return _usable(invite, now or timezone.now())


def link_logs_in(invite: Invite) -> bool:
    """Whether the invite's link may log its judge in; otherwise the judge logs in first (module docstring)."""
    return link_may_log_in(invite.judge, invite.campaign, invite.created_by)


def redeem_invite(
    secret: str, now: datetime | None = None, user: AbstractBaseUser | None = None
) -> Invite:
    """Use the invite once: mark it used and add its judge to the campaign.

    ``user`` is who is logged in (None: nobody). When ``user`` is the invite's judge, the invite is accepted.
    Otherwise the link must be allowed to log the judge in (``link_logs_in``; the caller then logs them in): if it
    is not, nothing changes and LoginRequired is raised when nobody is logged in, WrongAccount when someone
    else is.
    """
    now = now or timezone.now()
    with transaction.atomic():
        invite = _usable(
            Invite.objects.select_for_update(of=("self",))
            .select_related("campaign", "judge", "created_by")
            .filter(digest=digest(secret))
            .first(),
            now,
        )
        if user != invite.judge and not link_logs_in(invite):
            if user is None:
                raise LoginRequired(invite)
            raise WrongAccount(
                f"This invite is for the account {invite.judge.username}. You are logged in as {user.username}: "
                f"log in as {invite.judge.username} to accept it."
            )
        invite.used_at = now
        invite.save(update_fields=["used_at"])
        invite.campaign.judges.add(invite.judge)
    return invite


def revoke_invite(invite: Invite, revoked_by: AbstractBaseUser) -> None:
    """Delete an unused invite so that its link stops working; the judge's account stays.

    Raises PermissionDenied unless ``revoked_by`` manages the invite's campaign, and InviteError when the link
    has been used already (the judge is in the campaign then; a used invite is kept as the record of it). The
    row is locked as ``redeem_invite`` locks it, so a link opened at the same moment is either used or revoked.
    """
    if not can_manage(revoked_by, invite.campaign):
        raise PermissionDenied("Only the campaign's organizers can revoke its invites.")
    with transaction.atomic():
        locked = Invite.objects.select_for_update().filter(pk=invite.pk).first()
        if locked is None:
            raise InviteError("This invite does not exist any more.")
        if locked.used_at is not None:
            raise InviteError(f"The invite of {invite.judge.username!r} has been used already; it cannot be revoked.")
        locked.delete()
