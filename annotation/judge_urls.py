"""Judge page URLs (included at the site root by annotation.urls)."""
from django.urls import include, path

from .views import crowd, judge, start

#: The pages of one campaign a judge judges, below ``judge/campaigns/<campaign_id>/``.
campaign_pages = [
    path("", judge.campaign, name="judge-campaign"),
    path("done/", judge.done, name="judge-done"),
    path("guidelines/", judge.guidelines_page, name="judge-guidelines"),
    path("training/", judge.training_page, name="judge-training"),
    path("training/<int:position>/feedback/", judge.training_feedback, name="judge-training-feedback"),
    path("undo/", judge.undo, name="judge-undo"),
]

#: What a judge does on one assigned screen, below ``judge/screens/<token>/``.
screen_pages = [
    path("", judge.screen, name="judge-screen"),
    path("flag/", judge.flag, name="judge-flag"),
    path("lease/", judge.lease, name="judge-lease"),
]

#: A judge's own pages, below ``judge/``.
judge_pages = [
    path("", judge.home, name="judge-home"),
    path("password/", judge.password, name="judge-password"),
    path("campaigns/<int:campaign_id>/", include(campaign_pages)),
    path("screens/<uuid:token>/", include(screen_pages)),
]

urlpatterns = [
    path("", start.start, name="home"),
    path("invite/<str:secret>/", judge.invite, name="invite"),
    # A key is token_urlsafe (models.new_crowd_key): other text is no study link (a NUL reached PostgreSQL: a 500).
    path("crowd/<slug:key>/", crowd.study_link, name="crowd-study-link"),
    path("judge/", include(judge_pages)),
]
