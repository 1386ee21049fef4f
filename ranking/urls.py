"""Analysis page URLs."""
from django.urls import path

from . import views

urlpatterns = [
    path("campaigns/<int:pk>/analyses/", views.analyses, name="campaign-analyses"),
    path("campaigns/<int:pk>/analyses/<int:run_id>.json", views.analysis_json, name="campaign-analysis-json"),
]
