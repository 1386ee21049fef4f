"""Campaign guidelines: Markdown written by the organizer, acknowledged once by each judge before judging.

The Markdown is rendered with Python-Markdown and the HTML is then sanitized with nh3 (an allow-list of tags
and attributes; no scripts, no event handlers, no ``javascript:`` links), so organizers cannot inject script
into judges' pages. Images load nothing from elsewhere (no tracking pixel can tell a third party who reads the
guidelines, and when): an image's ``src`` must be a path on this site (``/static/...``, served by the product) or a
``data:image/png|jpeg|gif|webp;base64,...`` URI; any other image is shown as its alt text (as nothing when it has
none), not as an image without a source, which browsers draw as a broken-image icon. Links may not use ``data:``
URIs. An acknowledgement stores the SHA-256 of the text acknowledged: when the organizer edits
the guidelines, judges are asked to read them again.
"""
from __future__ import annotations

import hashlib
import html
import re
from functools import lru_cache

import markdown
import nh3
from django.contrib.auth.models import AbstractBaseUser
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from ..models import Campaign, GuidelinesAcknowledgement

#: An image's ``src``: a base64 image in the page, or a path on this site (not ``//host``, no backslash, space or
#: control character, which browsers drop or turn into ``/`` and so into another host).
PRODUCT_IMAGE = re.compile(
    r"data:image/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}"
    r"|/(?![/\\])[^\\\x00-\x20\x7f]*"
)
#: What browsers ignore in a URL: tab and line breaks anywhere, control characters and spaces in front.
_URL_NOISE = re.compile(r"[\t\n\r]")
_URL_LEADING = "".join(chr(code) for code in range(0x21))
URL_ATTRIBUTES = frozenset({"href", "cite"})
#: An ``<img>`` element as nh3 writes it (every attribute ``name="value"``, a ``"`` in a value as ``&quot;``), and
#: one of its attributes.
_IMG = re.compile(r'<img((?:\s+[^\s="]+="[^"]*")*)\s*/?>')
_ATTRIBUTE = re.compile(r'([^\s="]+)="([^"]*)"')


def _allowed_attribute(tag: str, attribute: str, value: str) -> str | None:
    """nh3's attribute filter: images from this site or ``data:`` only; ``data:`` nowhere else."""
    if tag == "img" and attribute == "src":
        return value if PRODUCT_IMAGE.fullmatch(value) else None
    if attribute in URL_ATTRIBUTES and _URL_NOISE.sub("", value).lstrip(_URL_LEADING).lower().startswith("data:"):
        return None
    return value


@lru_cache(maxsize=64)
def render_guidelines(text: str) -> SafeString:
    """Markdown to sanitized HTML, marked safe for templates (nh3 has removed anything active, and every image
    that would load from another site).

    Cached by text: every screen page carries its campaign's guidelines for the help dialog.
    """
    html = markdown.markdown(text, extensions=["sane_lists"], output_format="html")
    cleaned = nh3.clean(html, link_rel="noopener noreferrer nofollow", url_schemes=nh3.ALLOWED_URL_SCHEMES | {"data"},
                        attribute_filter=_allowed_attribute)
    return mark_safe(_IMG.sub(_image_or_alt_text, cleaned))


def _image_or_alt_text(match: re.Match) -> str:
    """An image that kept its ``src`` as it is; one whose ``src`` the filter removed as its alt text, escaped."""
    attributes = dict(_ATTRIBUTE.findall(match.group(1)))
    if "src" in attributes:
        return match.group(0)
    return escape(html.unescape(attributes.get("alt", "")))


def save_wording(campaign: Campaign, text: str, instruction: str) -> list[str]:
    """Store the campaign's guidelines ``text`` and judge-screen ``instruction`` (both checked by the form); what
    changed, as messages for the organizer (none when nothing changed)."""
    changed = [name for name, value in (("guidelines", text), ("instruction", instruction))
               if getattr(campaign, name) != value]
    if not changed:
        return []
    campaign.guidelines, campaign.instruction = text, instruction
    campaign.save(update_fields=changed)
    said = []
    if "guidelines" in changed:
        said.append("Saved the guidelines. Judges are asked to read them again when they next open the campaign.")
    if "instruction" in changed:
        said.append("Saved the instruction; judges see it on their next screen.")
    return said


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


def acknowledged_before(campaign: Campaign, judge: AbstractBaseUser) -> bool:
    """Whether ``judge`` acknowledged some wording of the guidelines of ``campaign`` (the current one or an older)."""
    return GuidelinesAcknowledgement.objects.filter(campaign=campaign, judge=judge).exists()


def acknowledge(campaign: Campaign, judge: AbstractBaseUser) -> GuidelinesAcknowledgement:
    """Record that ``judge`` read the current guidelines of ``campaign``."""
    acknowledgement, _ = GuidelinesAcknowledgement.objects.update_or_create(
        campaign=campaign, judge=judge, defaults={"digest": guidelines_digest(campaign)}
    )
    return acknowledgement
