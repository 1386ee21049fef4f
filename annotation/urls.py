"""Page URLs: organizer pages here, judge pages in judge_urls."""
from django.urls import include, path, re_path

from .views import closing, crowd, dashboard, organizer, organizer_judging, rater_qc, references, scores

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
    path("campaigns/", organizer.campaign_list, name="campaign-list"),
    path("campaigns/new/", organizer.campaign_create, name="campaign-create"),
    path("campaigns/<int:pk>/", include(campaign_pages)),
    path("jobs/<int:job_id>/", organizer.background_job_detail, name="background-job"),
    path("", include("annotation.judge_urls")),
]
