"""Page URLs: the organizer's pages of campaigns and jobs; the start page, invite and study links, and a judge's own
pages below ``judge/``."""
from django.urls import include, path, re_path

from .views import (
    closing,
    crowd,
    dashboard,
    judge,
    organizer,
    organizer_judging,
    rater_qc,
    references,
    scores,
    start,
)

#: The pages of one campaign, below ``campaigns/<pk>/``.
campaign_pages = [
    path("", organizer.campaign_detail, name="campaign-detail"),
    path("close/", closing.campaign_close, name="campaign-close"),
    path("reopen/", closing.campaign_reopen, name="campaign-reopen"),
    path("screens/", organizer.campaign_screens, name="campaign-screens"),
    path("screen-jobs/<int:screen_job_id>/resume/", organizer.screen_job_resume, name="campaign-screen-job-resume"),
    path("screens/<int:number>/", dashboard.screen_detail, name="campaign-screen"),
    path("screens/<int:number>/exclusion/", dashboard.screen_exclusion, name="campaign-screen-exclusion"),
    path("dashboard.json", dashboard.dashboard_json, name="campaign-dashboard"),
    path("references/import/", references.campaign_references_import, name="campaign-references-import"),
    path("appraise/import/", organizer.campaign_appraise_import, name="campaign-appraise-import"),
    path("appraise/judgments.xml", organizer.campaign_appraise_export, name="campaign-appraise-export"),
    path("scores/import/", scores.campaign_scores_import, name="campaign-scores-import"),
    re_path(r"^judgments\.(?P<extension>csv|json)$", organizer.campaign_judgments_export,
            name="campaign-judgments-export"),
    path("crowd-workers.csv", crowd.crowd_workers_csv, name="campaign-crowd-workers"),
    path("invites/", organizer_judging.invite_create, name="campaign-invite"),
    path("invites/<int:invite_id>/revoke/", organizer_judging.invite_revoke, name="campaign-invite-revoke"),
    path("guidelines/", organizer_judging.guidelines_edit, name="campaign-guidelines"),
    path("training/new/", organizer_judging.training_add, name="campaign-training-add"),
    path("training/<int:screen_id>/delete/", organizer_judging.training_delete, name="campaign-training-delete"),
    path("attention/", organizer_judging.attention_add, name="campaign-attention"),
    path("raters/", rater_qc.rater_list, name="campaign-raters"),
    path("raters/decision/", rater_qc.rater_decision, name="campaign-rater-decision"),
]

urlpatterns = [
    # The organizer's.
    path("campaigns/", organizer.campaign_list, name="campaign-list"),
    path("campaigns/new/", organizer.campaign_create, name="campaign-create"),
    path("campaigns/<int:pk>/", include(campaign_pages)),
    path("jobs/<int:job_id>/", organizer.background_job_detail, name="background-job"),
    # Everyone's, judges' and crowd workers'.
    path("", start.start, name="home"),
    path("invite/<str:secret>/", judge.invite, name="invite"),
    # A key is token_urlsafe (models.new_crowd_key): other text is no study link (a NUL reached PostgreSQL: a 500).
    path("crowd/<slug:key>/", crowd.study_link, name="crowd-study-link"),
    path("judge/", judge.home, name="judge-home"),
    path("judge/password/", judge.password, name="judge-password"),
    path("judge/campaigns/<int:campaign_id>/", judge.campaign, name="judge-campaign"),
    path("judge/campaigns/<int:campaign_id>/done/", judge.done, name="judge-done"),
    path("judge/campaigns/<int:campaign_id>/guidelines/", judge.guidelines_page, name="judge-guidelines"),
    path("judge/campaigns/<int:campaign_id>/training/", judge.training_page, name="judge-training"),
    path("judge/campaigns/<int:campaign_id>/training/<int:position>/feedback/", judge.training_feedback,
         name="judge-training-feedback"),
    path("judge/campaigns/<int:campaign_id>/undo/", judge.undo, name="judge-undo"),
    path("judge/screens/<uuid:token>/", judge.screen, name="judge-screen"),
    path("judge/screens/<uuid:token>/flag/", judge.flag, name="judge-flag"),
    path("judge/screens/<uuid:token>/lease/", judge.lease, name="judge-lease"),
]
