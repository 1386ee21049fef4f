"""Integrity lives in the database: these writes bypass forms and services and must still be refused."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from annotation.models import Assignment, Campaign, CandidateJudgment, Judgment, Output, Screen, ScreenCandidate, System
from annotation.services.importing import import_outputs

from .test_importing import SOURCE, named, systems

pytestmark = pytest.mark.django_db


@pytest.fixture
def judged():
    campaign = import_outputs("c", named("source", SOURCE), systems())
    segment = campaign.segments.get(line=0)
    screen = Screen.objects.create(campaign=campaign, segment=segment, number=0)
    candidates = list(segment.candidates.all())
    judge = User.objects.create_user("j")
    assignment = Assignment.objects.create(screen=screen, judge=judge, position=0)
    return campaign, screen, candidates, Judgment.objects.create(assignment=assignment)


def refused(**kwargs) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        kwargs.pop("model").objects.create(**kwargs)


def test_ranks_and_scores_stay_in_range(judged):
    _, _, candidates, judgment = judged
    refused(model=CandidateJudgment, judgment=judgment, candidate=candidates[0], position=0, rank=0)
    refused(model=CandidateJudgment, judgment=judgment, candidate=candidates[0], position=0, rank=11)
    refused(model=CandidateJudgment, judgment=judgment, candidate=candidates[0], position=0, score=100.5)
    refused(model=CandidateJudgment, judgment=judgment, candidate=candidates[0], position=0)
    CandidateJudgment.objects.create(judgment=judgment, candidate=candidates[0], position=0, rank=1)
    refused(model=CandidateJudgment, judgment=judgment, candidate=candidates[0], position=1, rank=2)


def test_one_output_per_system_and_segment_and_unique_names(judged):
    campaign, screen, candidates, judgment = judged
    alpha = campaign.systems.get(name="alpha")
    refused(model=Output, segment=candidates[0].segment, system=alpha, candidate=candidates[1])
    refused(model=System, campaign=campaign, name="alpha")
    refused(model=System, campaign=campaign, name="")
    ScreenCandidate.objects.create(screen=screen, candidate=candidates[0], position=0)
    refused(model=ScreenCandidate, screen=screen, candidate=candidates[0], position=1)
    refused(model=ScreenCandidate, screen=screen, candidate=candidates[1], position=0)
    refused(model=Judgment, assignment=judgment.assignment)


def test_campaign_settings_and_assignment_states_are_checked(judged):
    _, screen, _, _ = judged
    refused(model=Campaign, name="m1", max_candidates=1)
    refused(model=Campaign, name="r0", redundancy=0)
    refused(model=Campaign, name="rr", repeat_rate=1.5)
    refused(model=Assignment, screen=screen, position=1, status=Assignment.Status.SUBMITTED)
