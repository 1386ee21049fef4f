"""Closing a campaign: the one way its ``closed_at`` is set (the admin's campaign form calls it).

A closed campaign serves and stores nothing more (``queue``). Closing a crowd campaign also ends, in the same
transaction, every session of its workers that is not over (``crowd_completion.end_sessions_at_close``): a session
in which the worker submitted a screen gets its outcome and completion code, so the crowd-workers CSV is complete at
the close, whether or not the worker comes back, and a worker who comes back sees that code; a session without a
submitted screen gets no code and stays open. A screen a worker holds at the close counts in no code: it can no
longer be submitted.

The close first locks every judge's membership row of the campaign, which a submit and an undo lock first and then
read the campaign's ``closed_at`` again (``queue``): a submit is wholly before the close (its screen counted in its
session's code) or after it (refused), never stored after the code was given. It then locks the crowd workers' rows,
as a visit switching a worker's session does (``crowd_entry``), so no session changes while the codes are given.
"""
from __future__ import annotations

from datetime import datetime

from django.db import transaction
from django.utils import timezone

from ..models import Campaign, CrowdWorker
from .crowd_completion import end_sessions_at_close


def close(campaign: Campaign, at: datetime | None = None) -> int:
    """Close ``campaign`` at ``at`` (default now; ``campaign.closed_at`` is set too) and end its crowd workers'
    sessions; returns how many sessions got a completion code."""
    with transaction.atomic():
        members = Campaign.judges.through.objects.select_for_update().filter(campaign_id=campaign.pk)
        list(members.order_by("pk").values_list("pk", flat=True))
        workers = CrowdWorker.objects.select_for_update().filter(campaign=campaign)
        list(workers.order_by("pk").values_list("pk", flat=True))
        campaign.closed_at = at or timezone.now()
        Campaign.objects.filter(pk=campaign.pk).update(closed_at=campaign.closed_at)
        return end_sessions_at_close(campaign)
