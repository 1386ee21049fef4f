"""``{% judging_panel campaign %}``: the judging sections of the organizer's campaign page (judges' activity,
invites, guidelines, training screens, attention checks), from ``views.organizer_judging.judging_context``."""
from django import template

from ..models import Campaign
from ..views.organizer_judging import judging_context

register = template.Library()


@register.inclusion_tag("organizer/_judging.html", takes_context=True)
def judging_panel(context: template.Context, campaign: Campaign) -> dict:
    return judging_context(context["request"], campaign)
