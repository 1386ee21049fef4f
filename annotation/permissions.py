"""Who may do what: the role checks every view, API endpoint and command shares.

- admin: a superuser; everything, on every campaign.
- organizer: a member of the ``organizers`` group may create campaigns; a campaign's organizers (and its owner)
  manage it: imports, screens, invites, exports and reports.
- judge: a user in ``campaign.judges``; sees only their own assignments.
"""
from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Q, QuerySet
from rest_framework.permissions import BasePermission

from .models import Campaign

ORGANIZERS_GROUP = "organizers"


def is_organizer(user: AbstractBaseUser | AnonymousUser) -> bool:
    """May create campaigns."""
    return bool(user.is_authenticated and (user.is_superuser or user.groups.filter(name=ORGANIZERS_GROUP).exists()))


def managed_campaigns(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Campaign]:
    """The campaigns ``user`` may manage."""
    if not user.is_authenticated:
        return Campaign.objects.none()
    if user.is_superuser:
        return Campaign.objects.all()
    return Campaign.objects.filter(Q(owner=user) | Q(organizers=user)).distinct()


def organizes(user: AbstractBaseUser | AnonymousUser) -> bool:
    """May create campaigns or manages at least one: the campaign list is their start page."""
    return is_organizer(user) or managed_campaigns(user).exists()


def can_manage(user: AbstractBaseUser | AnonymousUser, campaign: Campaign) -> bool:
    """May manage ``campaign``."""
    return managed_campaigns(user).filter(pk=campaign.pk).exists()


class IsOrganizer(BasePermission):
    """DRF: the user may create campaigns; object access is limited to the campaigns they manage."""

    message = "Only organizers and admins may do this."

    def has_permission(self, request, view) -> bool:
        return is_organizer(request.user) or managed_campaigns(request.user).exists()

    def has_object_permission(self, request, view, obj) -> bool:
        return can_manage(request.user, obj)
