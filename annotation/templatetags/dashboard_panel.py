"""``{% dashboard_panel campaign no_screen_reason %}``: the live dashboard section of the organizer's campaign page,
which ``static/js/dashboard.js`` fills from the dashboard, leaderboard and history endpoints."""
from django import template

from ..models import Campaign

register = template.Library()

#: How often the open dashboard asks for new data.
POLL_SECONDS = 5


@register.inclusion_tag("organizer/_dashboard.html")
def dashboard_panel(campaign: Campaign, no_screen_reason: str | None = None) -> dict:
    """The panel's context; ``no_screen_reason`` (``screens.no_screen_reason``): why the campaign can have no
    screen, which the panel says, as there will be nothing to judge."""
    return {"campaign": campaign, "dashboard_poll_seconds": POLL_SECONDS, "dashboard_poll_ms": POLL_SECONDS * 1000,
            "no_screen_reason": no_screen_reason}
