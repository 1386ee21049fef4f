"""Page URLs: organizer pages here, judge pages in judge_urls."""
from django.urls import include, path

from .views import organizer

urlpatterns = [
    path("campaigns/", organizer.campaign_list, name="campaign-list"),
    path("campaigns/new/", organizer.campaign_create, name="campaign-create"),
    path("campaigns/<int:pk>/", organizer.campaign_detail, name="campaign-detail"),
    path("campaigns/<int:pk>/screens/", organizer.campaign_screens, name="campaign-screens"),
    path("campaigns/<int:pk>/appraise/import/", organizer.campaign_appraise_import, name="campaign-appraise-import"),
    path("campaigns/<int:pk>/appraise/judgments.xml", organizer.campaign_appraise_export, name="campaign-appraise-export"),
    path("", include("annotation.judge_urls")),
]
