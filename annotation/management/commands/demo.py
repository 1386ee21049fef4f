"""manage.py demo: a demo campaign built from the project's own small test set, with logins to try it."""
from importlib.resources import files

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand
from django.db import transaction

from annotation.models import Campaign
from annotation.permissions import ORGANIZERS_GROUP
from annotation.services.importing import import_outputs
from annotation.services.screens import create_screens
from annotation.services.textfiles import NamedFile

DEMO_CAMPAIGN = "Demo: learner essays"
DEMO_SYSTEMS = ("alpha", "bravo", "charlie", "delta", "echo")
#: (username, password, role) of the demo logins.
DEMO_USERS = (("admin", "admin", "admin"), ("organizer", "organizer", "organizer"), ("judge", "judge", "judge"))
DEMO_GUIDELINES = """\
Rank the corrections of the **bold** sentence from best (1) to worst (5). Ties are allowed.

- Judge grammaticality first, then fluency; a correction must keep the writer's meaning.
- Use the context sentences to decide what the writer meant.
- Flag a screen whose source is garbled or unreadable.
"""


def _demo_file(name: str) -> NamedFile:
    return NamedFile(name, files("annotation.demo").joinpath(name).read_bytes())


class Command(BaseCommand):
    help = (
        "Create the demo campaign (3 short essays, 5 systems plus the source) with 30 screens for 2 judges each, "
        "and the logins admin/admin, organizer/organizer and judge/judge. Running it again changes nothing."
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
            users[role] = user
        users["organizer"].groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
        campaign = Campaign.objects.filter(name=DEMO_CAMPAIGN).first()
        if campaign is None:
            campaign = import_outputs(
                DEMO_CAMPAIGN,
                _demo_file("source"),
                [_demo_file(name) for name in DEMO_SYSTEMS],
                _demo_file("documents"),
                source_is_system=True,
                redundancy=2,
                repeat_rate=0.1,
                seed=2015,
                guidelines=DEMO_GUIDELINES,
                owner=users["organizer"],
            )
            campaign.organizers.add(users["organizer"])
            create_screens(campaign, 30)
        campaign.judges.add(users["judge"])
        self.stdout.write(f"Demo campaign {campaign.name!r} is ready. Open {options['url']} and log in as:")
        for username, password, role in DEMO_USERS:
            self.stdout.write(f"  {role:<10} {username} / {password}")
