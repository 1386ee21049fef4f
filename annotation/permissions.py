"""Who may do what: the role checks every view, API endpoint and command shares.

- admin: a superuser; everything, on every campaign.
- organizer: a member of the ``organizers`` group may create campaigns; a campaign's organizers (and its owner)
  manage it: imports, screens, invites, exports and reports.
- judge: a user in ``campaign.judges``; sees only their own assignments.
- crowd worker: a judge made by a crowd campaign's study link (``CrowdWorker``): a judge of that one campaign only,
  with no password; never an organizer.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, Group
from django.db import connection
from django.db.models import Q, QuerySet
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.utils import timezone
from rest_framework.permissions import BasePermission

from .models import ApiToken, BackgroundJob, Campaign, CrowdWorker

ORGANIZERS_GROUP = "organizers"


def is_organizer(user: AbstractBaseUser | AnonymousUser) -> bool:
    """May create campaigns."""
    return bool(user.is_authenticated and (user.is_superuser or user.groups.filter(name=ORGANIZERS_GROUP).exists()))


def may_upload(user: AbstractBaseUser | AnonymousUser) -> bool:
    """May send large request bodies (test sets, judgments, references): organizers and staff."""
    return bool(user.is_authenticated and (user.is_staff or is_organizer(user)))


def managed_campaigns(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Campaign]:
    """The campaigns ``user`` may manage."""
    if not user.is_authenticated:
        return Campaign.objects.none()
    if user.is_superuser:
        return Campaign.objects.all()
    return Campaign.objects.filter(Q(owner=user) | Q(organizers=user)).distinct()


def managed_campaign_or_404(request: HttpRequest, pk: int) -> Campaign:
    """The campaign ``pk``, if the request's user manages it; 404 otherwise, so that other campaigns' names do not
    leak (every organizer page of one campaign starts here)."""
    return get_object_or_404(managed_campaigns(request.user), pk=pk)


def judged_campaign_or_404(request: HttpRequest, campaign_id: int) -> Campaign:
    """The campaign ``campaign_id``, if the request's user judges it; 404 otherwise (other campaigns' names do not
    leak). A judge reaches only their own assignments of it (``services.queue.assignment_for``)."""
    return get_object_or_404(request.user.judged_campaigns.all(), pk=campaign_id)


def organizes(user: AbstractBaseUser | AnonymousUser) -> bool:
    """May create campaigns or manages at least one: the campaign list is their start page."""
    return is_organizer(user) or managed_campaigns(user).exists()


@dataclass(frozen=True)
class Roles:
    """What the site header needs to know of a user: ``organizes`` (as ``organizes()``), ``judges`` (a judge of
    at least one campaign) and, for a crowd worker's account, the ``worker_id`` the platform gave them."""

    organizes: bool
    judges: bool
    worker_id: str | None = None

    @property
    def crowd_worker(self) -> bool:
        """As ``is_crowd_worker()``."""
        return self.worker_id is not None


def roles(user: AbstractBaseUser | AnonymousUser) -> Roles:
    """``user``'s roles in one query (``_ROLES_SQL``; every page's header asks, so this is on the judges' hot
    path)."""
    if not user.is_authenticated:
        return Roles(organizes=False, judges=False)
    if user.is_superuser:
        return Roles(organizes=True, judges=user.judged_campaigns.exists())
    tables = {
        "user_groups": get_user_model().groups.through._meta.db_table, "groups": Group._meta.db_table,
        "campaigns": Campaign._meta.db_table, "organizers": Campaign.organizers.through._meta.db_table,
        "judges": Campaign.judges.through._meta.db_table, "crowd_workers": CrowdWorker._meta.db_table,
    }
    with connection.cursor() as cursor:
        cursor.execute(_ROLES_SQL.format(**tables), {"user": user.pk, "group": ORGANIZERS_GROUP})
        organizer, manages, judges, worker_id = cursor.fetchone()
    return Roles(organizes=bool(organizer or manages), judges=bool(judges), worker_id=worker_id)


#: ``roles`` as plain SQL: the ORM took longer to compile its three ``Exists`` than the rest of a judge's page took
#: to render (``benchmarks/load.py``). Membership of the organizers group; owning or organizing a campaign; judging one;
#: the worker id of the crowd worker whose account it is (NULL: none).
_ROLES_SQL = """
SELECT
  EXISTS (SELECT 1 FROM {user_groups} AS member JOIN {groups} AS grp ON grp.id = member.group_id
          WHERE member.user_id = %(user)s AND grp.name = %(group)s),
  EXISTS (SELECT 1 FROM {campaigns} WHERE owner_id = %(user)s)
    OR EXISTS (SELECT 1 FROM {organizers} WHERE user_id = %(user)s),
  EXISTS (SELECT 1 FROM {judges} WHERE user_id = %(user)s),
  (SELECT worker_id FROM {crowd_workers} WHERE judge_id = %(user)s)
"""


def may_hold_api_tokens(user: AbstractBaseUser | AnonymousUser) -> bool:
    """May make API tokens: an active user who organizes (``organizes``: the organizers group, a campaign's
    organizers and owner, admins), the API's users. Judges and crowd workers have no use for the API. Each request a
    token makes is checked as any other (``IsOrganizer``), so a token of someone who no longer organizes reaches
    nothing."""
    return bool(user.is_authenticated and user.is_active and organizes(user))


def may_revoke_api_tokens(user: AbstractBaseUser | AnonymousUser) -> bool:
    """May see and revoke their own API tokens: whoever may hold them, and an active user who still holds unexpired
    ones from when they organized. Those reach nothing now (``may_hold_api_tokens``), but would again if the role
    came back, so their holder can end them."""
    return may_hold_api_tokens(user) or bool(
        user.is_authenticated and user.is_active
        and ApiToken.objects.filter(user=user, expiry__gt=timezone.now()).exists()
    )


def is_crowd_worker(user: AbstractBaseUser | AnonymousUser) -> bool:
    """A judge made by a crowd campaign's study link."""
    return bool(user.is_authenticated and CrowdWorker.objects.filter(judge=user).exists())


def can_manage(user: AbstractBaseUser | AnonymousUser, campaign: Campaign) -> bool:
    """May manage ``campaign``."""
    return managed_campaigns(user).filter(pk=campaign.pk).exists()


def visible_jobs(user: AbstractBaseUser | AnonymousUser) -> QuerySet[BackgroundJob]:
    """The background imports ``user`` may follow: their own, and those into campaigns they manage (admins: all)."""
    if not user.is_authenticated:
        return BackgroundJob.objects.none()
    if user.is_superuser:
        return BackgroundJob.objects.all()
    return BackgroundJob.objects.filter(Q(requested_by=user) | Q(campaign__in=managed_campaigns(user))).distinct()


def can_decide_raters(user: AbstractBaseUser | AnonymousUser, campaign: Campaign) -> bool:
    """May see ``campaign``'s rater QC and include, exclude or give a rater a fresh attempt: its organizers and
    admins (those who manage it)."""
    return can_manage(user, campaign)


class IsOrganizer(BasePermission):
    """DRF: creating a campaign takes an organizer (``is_organizer``); the other actions someone who organizes
    (``organizes``), and object access is limited to the campaigns they manage."""

    message = "Only organizers and admins may do this."

    def has_permission(self, request, view) -> bool:
        if getattr(view, "action", None) == "create":
            return is_organizer(request.user)
        return organizes(request.user)

    def has_object_permission(self, request, view, obj) -> bool:
        return can_manage(request.user, obj)
