"""Analysis page URLs."""
from django.urls import path, re_path

from . import dashboard_views, views

urlpatterns = [
    path("campaigns/<int:pk>/analyses/", views.analyses, name="campaign-analyses"),
    path("campaigns/<int:pk>/analyses/status.json", views.analyses_status, name="campaign-analyses-status"),
    path("campaigns/<int:pk>/leaderboard.json", dashboard_views.leaderboard_json, name="campaign-leaderboard"),
    path("campaigns/<int:pk>/history.json", dashboard_views.history_json, name="campaign-history"),
    re_path(r"^campaigns/(?P<pk>[0-9]+)/pairs/(?P<kind>unexpanded|expanded)\.tsv$", views.pairs_download,
            name="campaign-pairs"),
    re_path(r"^campaigns/(?P<pk>[0-9]+)/analyses/(?P<run_id>[0-9]+)\.(?P<extension>json|html|tex|csv)$",
            views.analysis_report, name="campaign-analysis-report"),
]
