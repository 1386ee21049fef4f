"""What organizers and admins do while judges judge, at the same moment, on PostgreSQL connections of their own:
the judge's work in flight is wholly before the organizer's change or refused with its message after it, and the
change never fails on it (``late_commits`` holds a submit open while the change waits for it)."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotation.models import Assignment, Judgment
from annotation.services import queue, rater_qc
from annotation.services.judgment_exports import judgment_records
from annotation.services.kept_slots import slot_totals
from annotation.services.screens import create_screens

from .factories import judge, small_campaign
from .late_commits import committed_after, held_submit, waiting_in_another_thread
from .test_attention import while_held
from .test_kept_slots import counted
from .test_kept_tallies import submit_one

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_account_deleted_in_the_admin_while_its_judge_submits_goes_with_that_judgment(admin_client):
    """The admin deletes ann while her submit (and the claim of its screen) is in flight: the deletion read her slots
    and judgments before the submit committed, and failed at its commit on the slot and judgment left referring to
    her (a 500); it waits for the submit and takes them with it."""
    campaign = small_campaign("deleted", redundancy=2, sampling="uniform")
    create_screens(campaign, 6)
    ann, ben = judge("ann", campaign), judge("ben", campaign)
    url = reverse("admin:auth_user_delete", args=[ann.pk])
    with held_submit(campaign, ann) as commit:
        with waiting_in_another_thread(lambda: admin_client.post(url, {"post": "yes"})) as answered:
            commit()
    assert answered[0].status_code == 302
    assert not get_user_model().objects.filter(pk=ann.pk).exists()
    assert not Assignment.objects.filter(judge_id=ann.pk).exists() and not Judgment.objects.exists()
    assert slot_totals(campaign) == counted(campaign) and slot_totals(campaign).originals == 11
    assert queue.next_assignment(campaign, ben) is not None



def test_a_submit_in_flight_when_a_rater_gets_a_fresh_attempt_is_of_the_attempt_set_aside():
    """The organizer offers ann a fresh attempt while her submit is in flight: it read her last judgment before the
    submit committed, so the judgment she sent before the decision counted in her new attempt; it waits for it."""
    campaign = small_campaign("fresh", redundancy=2, sampling="uniform")
    create_screens(campaign, 6)
    ann = judge("ann", campaign)
    submit_one(campaign, ann)
    decided = {}
    while_held(lambda: submit_one(campaign, ann),
               lambda: decided.setdefault("status", rater_qc.start_fresh_attempt(campaign, ann)))
    last = Judgment.objects.filter(assignment__judge=ann).order_by("-id").first()
    assert Judgment.objects.filter(assignment__judge=ann).count() == 2
    assert decided["status"].attempt == 2 and decided["status"].attempt_after == last.pk


def test_a_judgment_stored_while_the_judgments_download_streams_is_in_it_whole_or_not_at_all():
    """The judgments and their candidates are two streamed queries: ann's submit committed after the candidates' began
    and before the judgments', so the download held her judgment without its candidates (a CSV row of a judgment
    neither ranked nor flagged); both read one snapshot now."""
    campaign = small_campaign("download", redundancy=2, sampling="uniform")
    create_screens(campaign, 6)
    ann = judge("ann", campaign)
    submit_one(campaign, ann)
    with committed_after('"annotation_candidatejudgment"."slider_first"', lambda: submit_one(campaign, ann)):
        records = judgment_records(campaign)
    assert [bool(record["candidates"]) for record in records] == [True]
