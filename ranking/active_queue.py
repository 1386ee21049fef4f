"""Keeping the short queue of a campaign with active selection filled, in the background (issue 13).

``annotation.services.active_queue`` sends ``screens_wanted`` when a campaign with active selection runs low on
open screens; saving such a campaign (created, or switched to active) asks too. The receiver here starts
``top_up`` once the sender's transaction commits, where ``ANALYSIS_EXECUTION`` says computations run:

- ``celery``: the task ``ranking.tasks.top_up_active_queue_task`` on the workers; when the task queue is
  unreachable, the same in-process path as the embedded mode (so judges keep getting screens during an outage);
- ``process`` (the embedded mode, ``./dev demo``): a thread of this process, one per campaign at a time;
- ``inline`` (the tests): at once, in the committing thread.

``top_up`` holds the campaign's lock (as every screen writer does), counts the open screens again and writes the
missing ones: ``active_screens.write_active_screens`` for relative ranking (running TrueSkill, contested pairs)
and ``write_active_prws_screens`` for PRWS (EASL). A judge is served from the screens already written and never
waits on the choice; concurrent refills serialize on the lock and the later one finds the queue full.
"""
from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.db import connection, transaction

from annotation.models import Campaign
from annotation.services.active_queue import QUEUE_SCREENS, open_screens, screens_wanted
from annotation.services.screens import lock_campaign

logger = logging.getLogger(__name__)

_running: set[int] = set()
_running_lock = threading.Lock()


def top_up(campaign_id: int) -> int:
    """Write screens chosen by active selection until the campaign has ``QUEUE_SCREENS`` open screens; returns how
    many were written (0 for a closed campaign, one without active selection, or a full queue)."""
    from .active_screens import write_active_prws_screens, write_active_screens

    with transaction.atomic():
        campaign = Campaign.objects.filter(pk=campaign_id).first()
        if campaign is None or campaign.selection != Campaign.Selection.ACTIVE or campaign.closed_at is not None:
            return 0
        lock_campaign(campaign)
        missing = QUEUE_SCREENS - open_screens(campaign, QUEUE_SCREENS)
        if missing <= 0:
            return 0
        write = write_active_screens if campaign.mode == Campaign.Mode.RANKING else write_active_prws_screens
        return len(write(campaign, missing))


def top_up_logged(campaign_id: int) -> int:
    """``top_up``, its failure logged instead of raised (the caller is a background thread or a commit hook; the
    next request of a judge asks again)."""
    try:
        return top_up(campaign_id)
    except Exception:
        logger.exception("refilling the active queue of campaign %s failed", campaign_id)
        return 0


def _in_thread(campaign_id: int) -> None:
    """Run ``top_up`` in a daemon thread of this process, unless one is already running for the campaign."""
    with _running_lock:
        if campaign_id in _running:
            return
        _running.add(campaign_id)

    def run() -> None:
        try:
            top_up_logged(campaign_id)
        finally:
            connection.close()
            with _running_lock:
                _running.discard(campaign_id)

    threading.Thread(target=run, name=f"active-queue-{campaign_id}", daemon=True).start()


def start_top_up(campaign_id: int) -> None:
    """Start refilling the campaign's queue where ``ANALYSIS_EXECUTION`` says (module docstring)."""
    mode = settings.ANALYSIS_EXECUTION
    if mode == "inline":
        top_up_logged(campaign_id)
    elif mode == "celery":
        from .tasks import queue_errors, top_up_active_queue_task

        try:
            top_up_active_queue_task.delay(campaign_id)
        except queue_errors() as exc:
            logger.warning("active queue refilled in process: the task queue is unreachable (%s)", exc)
            _in_thread(campaign_id)
    else:
        _in_thread(campaign_id)


def on_screens_wanted(sender, campaign: Campaign, **kwargs) -> None:
    """Receiver of ``screens_wanted``: refill after the sender's transaction commits."""
    campaign_id = campaign.pk
    transaction.on_commit(lambda: start_top_up(campaign_id))


def on_campaign_saved(sender, instance: Campaign, **kwargs) -> None:
    """Receiver of Campaign's ``post_save``: a campaign with active selection gets its first screens (or more,
    when it was switched to active) once the save commits (its test set is written in the same transaction)."""
    if instance.selection == Campaign.Selection.ACTIVE and instance.closed_at is None:
        on_screens_wanted(sender, instance)


def connect() -> None:
    """Connect the receivers (``RankingConfig.ready``)."""
    from django.db.models.signals import post_save

    screens_wanted.connect(on_screens_wanted, sender=Campaign, dispatch_uid="ranking-active-queue")
    post_save.connect(on_campaign_saved, sender=Campaign, dispatch_uid="ranking-active-queue-campaign")
