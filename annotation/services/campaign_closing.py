"""Closing a campaign and opening it again: the one way its ``closed_at`` changes (the campaign page, the API's
``close`` and ``reopen``, ``manage.py close_campaign`` and the admin's campaign form call it).

A closed campaign serves and stores nothing more (``queue``). Closing a crowd campaign also ends, in the same
transaction, every session of its workers that is not over (``crowd_completion.end_sessions_at_close``): a session
in which the worker submitted a screen gets its outcome and completion code, so the crowd-workers CSV is complete at
the close, whether or not the worker comes back, and a worker who comes back sees that code; a session without a
submitted screen gets no code and stays open. A screen a worker holds at the close counts in no code: it can no
longer be submitted.

The close first locks every judge's membership row of the campaign, which a submit and an undo lock first and then
read the campaign's ``closed_at`` again (``queue``): a submit is wholly before the close (its screen counted in its
session's code) or after it (refused), never stored after the code was given. It then locks the crowd workers' rows,
as a visit switching a worker's session does (``crowd_entry``), so no session changes while the codes are given, and
last the campaign's row, whose ``closed_at`` it reads again there: of two closes at once, the second changes nothing.

Opening a closed campaign again (``reopen``) serves and stores judgments again. The codes the close gave stand: a
crowd session that got one serves nothing more (its worker goes on in a new session, the study link with a new
session id), and a session the close left open, without a code, goes on.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import transaction
from django.utils import timezone

from gecappraise.plurals import counted

from ..models import Assignment, Campaign, CrowdWorker
from .crowd_completion import end_sessions_at_close, sessions_ending_at_close


class ClosingRefused(ValueError):
    """The campaign is not in the state the change needs (closing a closed campaign, opening an open one); nothing
    was changed. The campaign's ``closed_at`` is then set to the stored one."""


def closed_at_text(at: datetime) -> str:
    """How pages and messages write the time a campaign was closed: ``2026-12-06 23:50 UTC`` (the server's zone)."""
    local = timezone.localtime(at)
    return f"{local:%Y-%m-%d %H:%M} {local.tzname()}"


def _stored_closed_at(campaign: Campaign) -> datetime | None:
    """``campaign``'s ``closed_at`` as stored, its row locked until the transaction ends."""
    return Campaign.objects.select_for_update().filter(pk=campaign.pk).values_list("closed_at", flat=True).get()


def close(campaign: Campaign, at: datetime | None = None) -> int:
    """Close ``campaign`` at ``at`` (default now; ``campaign.closed_at`` is set too) and end its crowd workers'
    sessions; returns how many sessions got a completion code. ``ClosingRefused`` when it is closed already
    (``campaign.closed_at`` is then set to the stored time)."""
    with transaction.atomic():
        members = Campaign.judges.through.objects.select_for_update().filter(campaign_id=campaign.pk)
        list(members.order_by("pk").values_list("pk", flat=True))
        workers = CrowdWorker.objects.select_for_update().filter(campaign=campaign)
        list(workers.order_by("pk").values_list("pk", flat=True))
        stored = _stored_closed_at(campaign)
        if stored is not None:
            campaign.closed_at = stored
            raise ClosingRefused(
                f"Campaign {campaign.name!r} was closed already, at {closed_at_text(stored)}; nothing was changed."
            )
        campaign.closed_at = at or timezone.now()
        Campaign.objects.filter(pk=campaign.pk).update(closed_at=campaign.closed_at)
        return end_sessions_at_close(campaign)


def reopen(campaign: Campaign) -> None:
    """Open the closed ``campaign`` again (``campaign.closed_at`` is cleared too): judges are served and submit
    again, and a crowd study takes new workers and sessions (see the module's docstring for the sessions the close
    ended). ``ClosingRefused`` when it is open."""
    with transaction.atomic():
        if _stored_closed_at(campaign) is None:
            campaign.closed_at = None
            raise ClosingRefused(f"Campaign {campaign.name!r} is open; nothing was changed.")
        campaign.closed_at = None
        Campaign.objects.filter(pk=campaign.pk).update(closed_at=None)


@dataclass(frozen=True)
class ClosingEffects:
    """What closing a campaign now would do, for its confirmation: ``held`` screens that judges hold (served, their
    lease running) could no longer be sent in, and ``codes`` crowd sessions would get their completion code."""

    held: int
    codes: int

    @property
    def held_text(self) -> str:
        """The screens judges hold, in words: "judges hold 3 screens now"."""
        return f"judges hold {counted(self.held, 'screen')} now" if self.held else "no judge holds one now"

    @property
    def codes_text(self) -> str:
        """The sessions that would get their code, in words."""
        if not self.codes:
            return "No session would get a code now."
        return f"{counted(self.codes, 'session')} would get {'its' if self.codes == 1 else 'their'} code now."


def closing_effects(campaign: Campaign) -> ClosingEffects:
    """The :class:`ClosingEffects` of closing the open ``campaign`` now (read without locks: a judge may submit or
    take a screen before the organizer confirms)."""
    held = Assignment.objects.filter(
        campaign=campaign, status=Assignment.Status.SERVED, lease_expires_at__gt=timezone.now()
    ).count()
    return ClosingEffects(held=held, codes=len(sessions_ending_at_close(campaign)) if campaign.crowd else 0)


def closed_summary(campaign: Campaign, completed: int) -> str:
    """What a close of ``campaign`` that gave ``completed`` crowd sessions their code did, in words."""
    done = f"Closed campaign {campaign.name!r} at {closed_at_text(campaign.closed_at)}."
    if campaign.crowd:
        done += f" {counted(completed, 'crowd session')} got {'its' if completed == 1 else 'their'} completion code."
    return done


def reopened_summary(campaign: Campaign) -> str:
    """What opening ``campaign`` again did, in words."""
    done = f"Opened campaign {campaign.name!r} again: judges are served screens again."
    if campaign.crowd:
        done += (" The study link takes work again; a session that got its code at the close stays complete, and its "
                 "worker goes on in a new session.")
    return done
