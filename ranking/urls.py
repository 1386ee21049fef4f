"""Analysis page URLs."""
from django.urls import path, re_path

from . import views

urlpatterns = [
    path("campaigns/<int:pk>/analyses/", views.analyses, name="campaign-analyses"),
    path("campaigns/<int:pk>/analyses/status.json", views.analyses_status, name="campaign-analyses-status"),
    re_path(r"^campaigns/(?P<pk>[0-9]+)/pairs/(?P<kind>unexpanded|expanded)\.tsv$", views.pairs_download,
            name="campaign-pairs"),
    re_path(r"^campaigns/(?P<pk>[0-9]+)/analyses/(?P<run_id>[0-9]+)\.(?P<extension>json|html|tex|csv)$",
            views.analysis_report, name="campaign-analysis-report"),
]
