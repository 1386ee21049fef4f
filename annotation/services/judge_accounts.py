"""Which existing accounts an invite link may log in, and which an import may give judgments to.

An account is *judge-only* when it is not an admin, not staff, not in the organizers group and manages no
campaign. Two rules keep one person from acting as another:

- An invite link logs in only a judge-only account without a usable password all of whose judged campaigns the
  invite's creator manages (an account the invite itself created is one). Any other account logs in with its own
  credentials and then accepts the invite.
- The judges named in an imported file (Appraise XML, PRWS scores) are local to the campaign: a name is a new
  account, or an existing judge-only account that judges this campaign and no other. Any other existing account
  receives judgments only when the import names it explicitly (``--map-user NAME=ACCOUNT``), and then, when an
  organizer who is not an admin imports, only a judge-only account all of whose campaigns that organizer manages.

What a refusal says depends on who asks. An organizer who is not an admin gets one reason for every existing account
they may not use (``UNUSABLE``), whatever the account is (an admin, staff or organizer account, a judge of or someone
invited to a campaign they do not manage, an account of its own): a reason naming it would tell organizers the roles of
other people's accounts and whose judges they are (that a name is taken still shows). Admins and the command line, who
can see every account anyway, get the particular reason.

Deleting accounts (``delete_accounts``: the admin's Delete, and a crowd worker's judge going with its worker) waits
for the judging of theirs in flight and stops more from starting before it reads what goes with them.
"""
from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import Q, QuerySet

from ..models import Assignment, Campaign, CrowdWorker
from ..permissions import ORGANIZERS_GROUP, managed_campaigns

#: Key of the advisory lock under which imports make judge accounts (screen jobs' locks use 0x5C4E).
ACCOUNTS_LOCK = (0x4A41, 0)

UNUSABLE = "cannot be used; choose another name"
"""The reason an organizer who is not an admin gets for any existing account they may not use (module docstring)."""


def lock_account_names() -> None:
    """Until the transaction ends, be the only one making judge accounts by name (PostgreSQL; SQLite serializes
    writes anyway). Two imports making the same new name at once: the later one waits, then finds the first one's
    account and checks it as any existing account (it failed with the database's unique error, a 500)."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", ACCOUNTS_LOCK)


def delete_accounts(users: QuerySet) -> tuple[int, dict[str, int]]:
    """Delete the accounts ``users`` with everything that goes with them (their slots, judgments, invites, ...), as
    ``QuerySet.delete`` does, and return what it returns.

    First, in the deletion's transaction, their membership rows of every campaign are locked (which a claim, a submit
    and an undo lock first: ``queue``), then the accounts' rows (which every row written for them locks to refer to
    them) and their slots (which another judge's claim skips): a screen or judgment of theirs in flight is committed
    before the deletion reads what goes with them, and their next one waits for it and finds them no judge. Read
    without these locks, a judgment committed meanwhile was left referring to a deleted slot, and the deletion failed
    with the database's error (a 500 in the admin)."""
    with transaction.atomic():
        ids = list(users.order_by("pk").values_list("pk", flat=True))
        locked = (
            Campaign.judges.through.objects.filter(user_id__in=ids),
            get_user_model().objects.filter(pk__in=ids),
            Assignment.objects.filter(judge_id__in=ids),
        )
        for rows in locked:
            list(rows.select_for_update().order_by("pk").values_list("pk", flat=True))
        return get_user_model().objects.filter(pk__in=ids).delete()


def other_role(user: AbstractBaseUser) -> str | None:
    """What ``user`` is besides a judge ("an admin account", ...), or None for a judge-only account."""
    if user.is_superuser:
        return "an admin account"
    if user.is_staff:
        return "a staff account"
    if managed_campaigns(user).exists() or user.groups.filter(name=ORGANIZERS_GROUP).exists():
        return "an organizer account"
    return None


def foreign_campaigns(user: AbstractBaseUser, by: AbstractBaseUser | None) -> QuerySet[Campaign]:
    """The campaigns ``user`` judges or is invited to that ``by`` does not manage (none for an admin ``by``; all
    for None). An invite counts as a campaign of the judge's already: the account may be one its organizer made."""
    judged = Campaign.objects.filter(Q(judges=user) | Q(invites__judge=user)).distinct()
    if by is None:
        return judged
    if by.is_superuser:
        return judged.none()
    return judged.exclude(pk__in=managed_campaigns(by).values("pk"))


def is_crowd_worker(user: AbstractBaseUser) -> bool:
    """Whether ``user`` is a crowd worker's account (``CrowdWorker.judge``): it judges its crowd campaign only, by
    the study link, and is never invited."""
    return CrowdWorker.objects.filter(judge=user).exists()


def link_may_log_in(user: AbstractBaseUser, campaign: Campaign, by: AbstractBaseUser | None) -> bool:
    """Whether an invite of ``user`` to ``campaign`` created by ``by`` may log ``user`` in by its link alone."""
    return (
        not user.has_usable_password()
        and other_role(user) is None
        and not is_crowd_worker(user)
        and not foreign_campaigns(user, by).exclude(pk=campaign.pk).exists()
    )


def tells_reasons(by: AbstractBaseUser | None) -> bool:
    """Whether refusals to ``by`` may say why an account may not be used: to an admin, or on the command line
    (None); an organizer gets ``UNUSABLE`` (module docstring)."""
    return by is None or by.is_superuser


def import_refusal(
    user: AbstractBaseUser, campaign: Campaign, explicit: bool, by: AbstractBaseUser | None
) -> str | None:
    """Why imported judgments of ``campaign`` may not go to the existing account ``user``; None when they may.

    ``explicit``: the import named the account explicitly. ``by``: the organizer importing on the web, or None on
    the command line (whose operator may map a name to any account). The reason completes a sentence that starts
    with the account's name; it is ``UNUSABLE`` whatever the account is unless ``tells_reasons(by)``.
    """
    reason = _import_reason(user, campaign, explicit, by)
    return reason if reason is None or tells_reasons(by) else UNUSABLE


def _import_reason(
    user: AbstractBaseUser, campaign: Campaign, explicit: bool, by: AbstractBaseUser | None
) -> str | None:
    if explicit and tells_reasons(by):
        return None
    role = other_role(user)
    if role is not None:
        return f"is {role}"
    if explicit:  # an organizer's map (tells_reasons: allowed above), who is told UNUSABLE whatever the reason
        return UNUSABLE if foreign_campaigns(user, by).exclude(pk=campaign.pk).exists() else None
    if user.judged_campaigns.exclude(pk=campaign.pk).exists():
        return "judges another campaign"
    if not user.judged_campaigns.filter(pk=campaign.pk).exists():
        return "is an existing account that does not judge this campaign"
    return None
