"""Leaving a screen out of every analysis (``Screen.excluded``), e.g. after a judge flagged it, or putting it back.

``ranking.loading`` leaves the judgments of excluded screens out of every analysis and of the live leaderboard;
exports of the judgments keep them (they were made).
"""
from __future__ import annotations

from ..models import Screen


def set_excluded(screen: Screen, excluded: bool) -> bool:
    """Exclude ``screen`` from analysis (or put it back); return whether that changed anything."""
    changed = Screen.objects.filter(pk=screen.pk).exclude(excluded=excluded).update(excluded=excluded) > 0
    screen.excluded = excluded
    return changed
