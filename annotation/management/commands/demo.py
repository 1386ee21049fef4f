"""manage.py demo: two demo campaigns (relative ranking and PRWS) built from the project's own small test set in
annotation/demo, with logins to try them and two demo judges whose judgments are already in."""
from __future__ import annotations

from datetime import timedelta
from importlib.resources import files

import numpy as np
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand
from django.db import transaction
from django.utils import timezone

from annotation.models import Assignment, Campaign
from annotation.permissions import ORGANIZERS_GROUP
from annotation.random_streams import campaign_rng
from annotation.services import queue
from annotation.services.importing import import_outputs
from annotation.services.screens import create_screens
from annotation.services.textfiles import NamedFile

DEMO_CAMPAIGN = "Demo: learner essays"
DEMO_PRWS_CAMPAIGN = "Demo: learner essays (PRWS)"
DEMO_SYSTEMS = ("alpha", "bravo", "charlie", "delta", "echo")
DEMO_SCREENS = 30
#: (username, password, role) of the demo logins; the "demo judge"s have judged DEMO_JUDGED screens of each campaign.
DEMO_USERS = (
    ("admin", "admin", "admin"),
    ("organizer", "organizer", "organizer"),
    ("judge", "judge", "judge"),
    ("ann", "ann", "demo judge"),
    ("ben", "ben", "demo judge"),
)
#: Screens each demo judge has judged per campaign (the same screens: they give inter-annotator agreement).
DEMO_JUDGED = 20
#: How good the demo's simulated judges take each output to be (0-1): the order the demo's reports find.
DEMO_QUALITY = {"alpha": 0.85, "bravo": 0.7, "charlie": 0.55, "delta": 0.4, "echo": 0.3, "source": 0.1}
#: Per-judge noise on that quality (standard deviation), so the judges agree often but not always.
DEMO_NOISE = 0.08
DEMO_GUIDELINES = """\
Rank the corrections of the **bold** sentence from best (1) to worst (5). Ties are allowed.

- Judge grammaticality first, then fluency; a correction must keep the writer's meaning.
- Use the context sentences to decide what the writer meant.
- Flag a screen whose source is garbled or unreadable.
"""
DEMO_PRWS_GUIDELINES = """\
Score each correction of the **bold** sentence from 0 (completely ungrammatical or garbled) to 100 (perfect).

- Judge grammaticality first, then fluency; tick *Meaning changed* when a correction changes what the writer meant.
- Use the context sentences to decide what the writer meant.
- Flag a screen whose source is garbled or unreadable.
"""


def _demo_file(name: str) -> NamedFile:
    return NamedFile(name, files("annotation.demo").joinpath(name).read_bytes())


def _create_campaign(name: str, mode: str, guidelines: str, organizer) -> Campaign:
    campaign = import_outputs(
        name,
        _demo_file("source"),
        [_demo_file(system) for system in DEMO_SYSTEMS],
        _demo_file("documents"),
        source_is_system=True,
        mode=mode,
        redundancy=2,
        repeat_rate=0.1,
        seed=2015,
        guidelines=guidelines,
        owner=organizer,
    )
    campaign.organizers.add(organizer)
    create_screens(campaign, DEMO_SCREENS)
    return campaign


def _qualities(assignment: Assignment, rng: np.random.Generator) -> list[float]:
    """The simulated judge's view of each shown candidate: its systems' mean quality plus the judge's noise."""
    qualities = []
    for slot in assignment.screen.slots.order_by("position").select_related("candidate"):
        names = slot.candidate.systems.values_list("name", flat=True)
        qualities.append(float(np.mean([DEMO_QUALITY[name] for name in names])) + rng.normal(0, DEMO_NOISE))
    return qualities


def _ranks(qualities: list[float]) -> list[int]:
    """1 = best; candidates within one step of 1/8 quality tie (competition ranking)."""
    steps = [round(quality * 8) for quality in qualities]
    return [1 + sum(other > step for other in steps) for step in steps]


def _judge_screens(campaign: Campaign, judge, count: int, rng: np.random.Generator, start) -> None:
    """Serve and submit ``count`` screens (and the repeats that fall due meanwhile) as ``judge``, 40-90 s each from
    ``start``."""
    now, originals = start, 0
    while originals < count:
        assignment = queue.next_assignment(campaign, judge, now=now)
        if assignment is None:
            return
        originals += assignment.repeat_of_id is None
        now += timedelta(seconds=float(rng.uniform(40, 90)))
        qualities, keys = _qualities(assignment, rng), queue.candidate_keys(assignment)
        if campaign.mode == Campaign.Mode.PRWS:
            scores = [float(np.clip(round(100 * quality), 0, 100)) for quality in qualities]
            queue.submit_scores(assignment.token, judge, scores, [False] * len(scores), keys, now=now)
        else:
            queue.submit_ranking(assignment.token, judge, _ranks(qualities), keys, now=now)


class Command(BaseCommand):
    help = (
        f"Create two demo campaigns from the project's own small test set (3 short essays, 5 systems plus the "
        f"source), {DEMO_CAMPAIGN!r} (relative ranking) and {DEMO_PRWS_CAMPAIGN!r} (PRWS scores), each with "
        f"{DEMO_SCREENS} screens for 2 judges, and the logins admin/admin, organizer/organizer, judge/judge and the "
        f"demo judges ann/ann and ben/ben, who have judged the same {DEMO_JUDGED} screens of each campaign (so their "
        "analyses have every table and plot). Running it again changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000/", help="the address to print")

    @transaction.atomic
    def handle(self, *args, **options):
        User = get_user_model()
        users = {}
        for username, password, role in DEMO_USERS:
            user, created = User.objects.get_or_create(username=username)
            if created:
                user.set_password(password)
                user.is_staff = user.is_superuser = role == "admin"
                user.save()
            users[username] = user
        users["organizer"].groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
        demo_judges = [users[name] for name, _, role in DEMO_USERS if role == "demo judge"]
        for name, mode, guidelines in (
            (DEMO_CAMPAIGN, Campaign.Mode.RANKING, DEMO_GUIDELINES),
            (DEMO_PRWS_CAMPAIGN, Campaign.Mode.PRWS, DEMO_PRWS_GUIDELINES),
        ):
            campaign = Campaign.objects.filter(name=name).first()
            if campaign is None:
                campaign = _create_campaign(name, mode, guidelines, users["organizer"])
                campaign.judges.add(users["judge"], *demo_judges)
                rng = campaign_rng(campaign, "demo", len(name))
                start = timezone.now() - timedelta(days=1)
                for judge in demo_judges:
                    _judge_screens(campaign, judge, DEMO_JUDGED, rng, start)
            campaign.judges.add(users["judge"])
        self.stdout.write(f"Demo campaigns {DEMO_CAMPAIGN!r} and {DEMO_PRWS_CAMPAIGN!r} are ready. "
                          f"Open {options['url']} and log in as:")
        for username, password, role in DEMO_USERS:
            self.stdout.write(f"  {role:<10} {username} / {password}")
