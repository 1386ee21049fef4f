"""``{% dashboard_panel campaign %}``: the live dashboard section of the organizer's campaign page, which
``static/js/dashboard.js`` fills from the dashboard, leaderboard and history endpoints."""
from django import template

from ..models import Campaign

register = template.Library()

#: How often the open dashboard asks for new data.
POLL_SECONDS = 5


@register.inclusion_tag("organizer/_dashboard.html")
def dashboard_panel(campaign: Campaign) -> dict:
    return {"campaign": campaign, "dashboard_poll_seconds": POLL_SECONDS, "dashboard_poll_ms": POLL_SECONDS * 1000}
