"""An organizer's request for attention checks on a share of the campaign's open screens (those unserved and
without a check): at once, or by a background job (``background_jobs``) when it would change more than
``MAX_CHECKS_PER_REQUEST`` screens, each of which is a few queries.

The generator is the campaign's ``attention`` stream for the number of screens already carrying a check
(``random_streams.campaign_rng``), read under the campaign's lock: the same campaign and the same sequence of
requests place the same checks, whether a request or a job places them.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from ..models import Campaign
from ..random_streams import campaign_rng
from .attention import AttentionCheckError, add_attention_checks
from .judging_overview import attention_coverage

#: The most screens one web request puts attention checks on; a larger request becomes a background job.
MAX_CHECKS_PER_REQUEST = 2_000


class NoOpenScreens(AttentionCheckError):
    """Every unserved screen shows a check already (or none is unserved)."""

    def __init__(self) -> None:
        super().__init__("No unserved screen is without an attention check; add screens first.")


@dataclass(frozen=True)
class ChecksAdded:
    """``added`` checks on the ``open`` screens that were unserved and without one."""

    added: int
    open: int


def planned_checks(campaign: Campaign, share: float) -> int:
    """About how many screens a request for ``share`` of the open screens changes. Raises NoOpenScreens."""
    coverage = attention_coverage(campaign)
    if coverage.open == 0:
        raise NoOpenScreens()
    return round(share * coverage.open)


def add_checks_in_turn(campaign: Campaign, share: float) -> ChecksAdded:
    """Put attention checks on ``share`` of the open screens, under the campaign's lock, with the generator of the
    campaign's ``attention`` stream for the checks placed so far. Raises AttentionCheckError (NoOpenScreens, or
    from ``attention.add_attention_checks``; nothing changed)."""
    with transaction.atomic():
        Campaign.objects.select_for_update().filter(pk=campaign.pk).first()
        coverage = attention_coverage(campaign)
        if coverage.open == 0:
            raise NoOpenScreens()
        rng = campaign_rng(campaign, "attention", coverage.with_check)
        return ChecksAdded(add_attention_checks(campaign, share, rng), coverage.open)
