"""Judge page URLs (included at the site root by annotation.urls)."""
from django.urls import path

from .views import crowd, judge, start

urlpatterns = [
    path("", start.start, name="home"),
    path("judge/", judge.home, name="judge-home"),
    path("invite/<str:secret>/", judge.invite, name="invite"),
    path("crowd/<str:key>/", crowd.study_link, name="crowd-study-link"),
    path("judge/password/", judge.password, name="judge-password"),
    path("judge/campaigns/<int:campaign_id>/", judge.campaign, name="judge-campaign"),
    path("judge/campaigns/<int:campaign_id>/done/", judge.done, name="judge-done"),
    path("judge/campaigns/<int:campaign_id>/guidelines/", judge.guidelines_page, name="judge-guidelines"),
    path("judge/campaigns/<int:campaign_id>/training/", judge.training_page, name="judge-training"),
    path(
        "judge/campaigns/<int:campaign_id>/training/<int:position>/feedback/",
        judge.training_feedback,
        name="judge-training-feedback",
    ),
    path("judge/campaigns/<int:campaign_id>/undo/", judge.undo, name="judge-undo"),
    path("judge/screens/<uuid:token>/", judge.screen, name="judge-screen"),
    path("judge/screens/<uuid:token>/flag/", judge.flag, name="judge-flag"),
    path("judge/screens/<uuid:token>/lease/", judge.lease, name="judge-lease"),
]
