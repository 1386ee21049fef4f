"""Analysis page URLs."""
from django.urls import include, path, re_path

from . import dashboard_views, views

#: The analysis pages of one campaign, below ``campaigns/<pk>/``.
campaign_pages = [
    path("analyses/", views.analyses, name="campaign-analyses"),
    path("analyses/status.json", views.analyses_status, name="campaign-analyses-status"),
    path("leaderboard.json", dashboard_views.leaderboard_json, name="campaign-leaderboard"),
    path("history.json", dashboard_views.history_json, name="campaign-history"),
    re_path(r"^pairs/(?P<kind>unexpanded|expanded)\.tsv$", views.pairs_download, name="campaign-pairs"),
    re_path(r"^analyses/(?P<run_id>[0-9]+)\.(?P<extension>json|html|tex|csv)$", views.analysis_report,
            name="campaign-analysis-report"),
]

urlpatterns = [
    path("campaigns/<int:pk>/", include(campaign_pages)),
]
