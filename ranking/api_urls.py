"""REST API URLs of the analyses (under /api/, beside annotation.api_urls)."""
from django.urls import path, re_path

from .api import AnalysisViewSet

urlpatterns = [
    path("campaigns/<int:pk>/analyses/", AnalysisViewSet.as_view({"get": "list", "post": "start"}),
         name="api-campaign-analyses"),
    path("campaigns/<int:pk>/analyses/<int:run_id>/", AnalysisViewSet.as_view({"get": "retrieve"}),
         name="api-campaign-analysis"),
    re_path(r"^campaigns/(?P<pk>[0-9]+)/analyses/(?P<run_id>[0-9]+)/report\.(?P<extension>json|html|tex|csv)$",
            AnalysisViewSet.as_view({"get": "report"}), name="api-campaign-analysis-report"),
]
