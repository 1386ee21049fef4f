"""Page URLs: organizer pages here, judge pages in judge_urls."""
from django.urls import include, path, re_path

from .views import crowd, dashboard, organizer, organizer_judging, rater_qc, references

urlpatterns = [
    path("campaigns/", organizer.campaign_list, name="campaign-list"),
    path("campaigns/new/", organizer.campaign_create, name="campaign-create"),
    path("campaigns/<int:pk>/", organizer.campaign_detail, name="campaign-detail"),
    path("jobs/<int:job_id>/", organizer.background_job_detail, name="background-job"),
    path("campaigns/<int:pk>/screens/", organizer.campaign_screens, name="campaign-screens"),
    path("campaigns/<int:pk>/screen-jobs/<int:screen_job_id>/resume/", organizer.screen_job_resume,
         name="campaign-screen-job-resume"),
    path("campaigns/<int:pk>/screens/<int:number>/", dashboard.screen_detail, name="campaign-screen"),
    path("campaigns/<int:pk>/screens/<int:number>/exclusion/", dashboard.screen_exclusion,
         name="campaign-screen-exclusion"),
    path("campaigns/<int:pk>/dashboard.json", dashboard.dashboard_json, name="campaign-dashboard"),
    path("campaigns/<int:pk>/references/import/", references.campaign_references_import,
         name="campaign-references-import"),
    path("campaigns/<int:pk>/appraise/import/", organizer.campaign_appraise_import, name="campaign-appraise-import"),
    path("campaigns/<int:pk>/appraise/judgments.xml", organizer.campaign_appraise_export,
         name="campaign-appraise-export"),
    re_path(r"^campaigns/(?P<pk>[0-9]+)/judgments\.(?P<extension>csv|json)$", organizer.campaign_judgments_export,
            name="campaign-judgments-export"),
    path("campaigns/<int:pk>/crowd-workers.csv", crowd.crowd_workers_csv, name="campaign-crowd-workers"),
    path("campaigns/<int:pk>/invites/", organizer_judging.invite_create, name="campaign-invite"),
    path(
        "campaigns/<int:pk>/invites/<int:invite_id>/revoke/",
        organizer_judging.invite_revoke,
        name="campaign-invite-revoke",
    ),
    path("campaigns/<int:pk>/guidelines/", organizer_judging.guidelines_edit, name="campaign-guidelines"),
    path("campaigns/<int:pk>/training/new/", organizer_judging.training_add, name="campaign-training-add"),
    path(
        "campaigns/<int:pk>/training/<int:screen_id>/delete/",
        organizer_judging.training_delete,
        name="campaign-training-delete",
    ),
    path("campaigns/<int:pk>/attention/", organizer_judging.attention_add, name="campaign-attention"),
    path("campaigns/<int:pk>/raters/", rater_qc.rater_list, name="campaign-raters"),
    path("campaigns/<int:pk>/raters/decision/", rater_qc.rater_decision, name="campaign-rater-decision"),
    path("", include("annotation.judge_urls")),
]
