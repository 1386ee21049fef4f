"""The set-up a new user and a deployment rely on: the README's commands, the demo, docker-compose."""
from __future__ import annotations

import io
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from annotation.models import Assignment, Campaign, CandidateJudgment, Judgment

REPO = Path(__file__).resolve().parents[2]


def test_readme_starts_with_the_two_commands_and_ci_runs_the_test_one():
    readme = (REPO / "README.md").read_text()
    commands = re.findall(r"^    (\./dev \w+)$", readme, flags=re.M)
    assert commands[:2] == ["./dev demo", "./dev test"]
    assert "./dev test" in (REPO / ".ci" / "run").read_text()


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose is not installed")
def test_docker_compose_file_is_valid():
    env = {**os.environ, "SECRET_KEY": "compose-check"}
    result = subprocess.run(["docker-compose", "config", "-q"], cwd=REPO, env=env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    services = subprocess.run(["docker-compose", "config", "--services"], cwd=REPO, env=env,
                              capture_output=True, text=True).stdout.split()
    assert sorted(services) == ["beat", "postgres", "redis", "web", "worker"]


@pytest.mark.django_db
def test_demo_command_creates_a_usable_campaign_once():
    out = io.StringIO()
    call_command("demo", stdout=out)
    call_command("demo", stdout=io.StringIO())
    campaigns = {campaign.mode: campaign for campaign in Campaign.objects.all()}
    assert sorted(campaigns) == ["prws", "ranking"]
    for campaign in campaigns.values():
        assert campaign.systems.count() == 6 and campaign.documents.count() == 3 and campaign.segments.count() == 14
        assert campaign.screens.count() == 30
        # ann and ben judged the same 20 screens (inter-annotator agreement); each screen's 2 slots of the other 10
        # wait for the judge login
        judged = Judgment.objects.filter(assignment__campaign=campaign, assignment__repeat_of__isnull=True)
        screens = {
            name: set(judged.filter(assignment__judge__username=name).values_list("assignment__screen", flat=True))
            for name in ("ann", "ben")
        }
        assert len(screens["ann"]) == 20 and screens["ann"] == screens["ben"]
        assert Assignment.objects.filter(screen__campaign=campaign, judge__isnull=True).count() == 20
    assert not CandidateJudgment.objects.filter(judgment__assignment__campaign=campaigns["prws"], score=None).exists()
    assert not CandidateJudgment.objects.filter(judgment__assignment__campaign=campaigns["ranking"], rank=None).exists()
    text = out.getvalue()
    for login in ("admin / admin", "organizer / organizer", "judge / judge", "ann / ann", "ben / ben"):
        assert login in text
    client = Client()
    assert client.login(username="organizer", password="organizer")
    page = client.get(f"/campaigns/{campaigns['ranking'].pk}/")
    assert page.status_code == 200 and "Distinct outputs per sentence" in page.content.decode()
    assert Client().login(username="judge", password="judge")
