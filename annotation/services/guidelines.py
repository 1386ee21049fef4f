"""Campaign guidelines: Markdown written by the organizer, acknowledged once by each judge before judging.

The Markdown is rendered with Python-Markdown and the HTML is then sanitized with nh3 (an allow-list of tags
and attributes; no scripts, no event handlers, no ``javascript:`` links), so organizers cannot inject script
into judges' pages. An acknowledgement stores the SHA-256 of the text acknowledged: when the organizer edits
the guidelines, judges are asked to read them again.
"""
from __future__ import annotations

import hashlib
from functools import lru_cache

import markdown
import nh3
from django.contrib.auth.models import AbstractBaseUser
from django.utils.safestring import SafeString, mark_safe

from ..models import Campaign, GuidelinesAcknowledgement


@lru_cache(maxsize=64)
def render_guidelines(text: str) -> SafeString:
    """Markdown to sanitized HTML, marked safe for templates (nh3 has removed anything active).

    Cached by text: every screen page carries its campaign's guidelines for the help dialog.
    """
    html = markdown.markdown(text, extensions=["sane_lists"], output_format="html")
    return mark_safe(nh3.clean(html, link_rel="noopener noreferrer nofollow"))


def guidelines_digest(campaign: Campaign) -> str:
    """SHA-256 hex digest of the campaign's guidelines text."""
    return hashlib.sha256(campaign.guidelines.encode()).hexdigest()


def needs_acknowledgement(campaign: Campaign, judge: AbstractBaseUser) -> bool:
    """True when the campaign has guidelines the judge has not acknowledged in their current wording."""
    if not campaign.guidelines.strip():
        return False
    return not GuidelinesAcknowledgement.objects.filter(
        campaign=campaign, judge=judge, digest=guidelines_digest(campaign)
    ).exists()


def acknowledge(campaign: Campaign, judge: AbstractBaseUser) -> GuidelinesAcknowledgement:
    """Record that ``judge`` read the current guidelines of ``campaign``."""
    acknowledgement, _ = GuidelinesAcknowledgement.objects.update_or_create(
        campaign=campaign, judge=judge, defaults={"digest": guidelines_digest(campaign)}
    )
    return acknowledgement
