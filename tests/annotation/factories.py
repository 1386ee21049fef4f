"""Building campaigns, screens and judges for tests through the product's own import services.

``small_campaign`` is a two-document test set whose systems have distinctive names (so a test can assert that
no page mentions them); ``conll14_campaign`` imports the CoNLL-14 outputs (G15) as ``import_outputs`` does.
``add_screen`` writes one screen with chosen candidates in a chosen order, as the Appraise import and the
sampler do, with pool slots or slots given to judges directly.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from django.contrib.auth import get_user_model
from django.test import Client

from annotation.models import Assignment, Campaign, Candidate, Screen, ScreenCandidate, Segment
from annotation.services.importing import import_outputs
from annotation.services.kept_slots import count_written_slots
from annotation.services.screens import next_screen_number, next_slot_position
from annotation.services.textfiles import NamedFile

#: Distinctive system names: none of them occurs in any sentence or in the page's markup.
SYSTEM_NAMES = ("ZEPHYRSYS", "QUOKKAGEC", "MARMOTFIX")
#: Two documents (3 + 3 sentences); the source is judged too, as INPUT.
SOURCE = [
    "He go to school every day .",
    "She like apples and <script>alert(1)</script> pears .",
    "They is here since morning .",
    "A new document starts here .",
    "It have many problem .",
    "The end are near .",
]
DOCUMENTS = ["essay-1"] * 3 + ["essay-2"] * 3
OUTPUTS = {
    "ZEPHYRSYS": [
        "He goes to school every day .",
        "She likes apples and <script>alert(1)</script> pears .",
        "They have been here since morning .",
        "A new document starts here .",
        "It has many problems .",
        "The end is near .",
    ],
    "QUOKKAGEC": [
        "He goes to the school every day .",
        "She likes apples and pears .",
        "They are here since the morning .",
        "A new document starts here .",
        "It has many problem .",
        "The end is near .",
    ],
    "MARMOTFIX": [
        "He go to school every day .",
        "She like apples and <b>pears</b> .",
        "They is here since morning .",
        "A document starts here .",
        "It have many problems .",
        "End are near .",
    ],
}


def _file(name: str, lines: Sequence[str]) -> NamedFile:
    return NamedFile(name, ("\n".join(lines) + "\n").encode())


def small_campaign(name: str = "small", **options) -> Campaign:
    """The small test set above as a campaign (Campaign fields in ``options``)."""
    return import_outputs(
        name,
        _file("INPUT", SOURCE),
        [_file(system, lines) for system, lines in OUTPUTS.items()],
        _file("documents", DOCUMENTS),
        source_is_system=True,
        **options,
    )


def conll14_campaign(conll14_dir: Path, name: str = "conll14", **options) -> Campaign:
    """The 13 CoNLL-14 outputs (INPUT is the source and a system), one document, as G15 judged them."""
    outputs = conll14_dir / "outputs"
    systems = [NamedFile(path.name, path.read_bytes()) for path in sorted(outputs.iterdir())]
    source = next(file for file in systems if file.name == "INPUT")
    return import_outputs(name, source, systems, **options)


def judge(username: str, campaign: Campaign | None = None, password: str | None = None):
    """A user (with ``password``, or none usable), made a judge of ``campaign`` when given."""
    user = get_user_model().objects.create(username=username)
    if password is None:
        user.set_unusable_password()
    else:
        user.set_password(password)
    user.save()
    if campaign is not None:
        campaign.judges.add(user)
    return user


def add_screen(
    campaign: Campaign,
    line: int,
    candidates: Iterable[Candidate] | None = None,
    *,
    slots: int = 1,
    judges: Sequence = (),
) -> Screen:
    """A screen of the segment at ``line`` showing ``candidates`` in this order (all, by id, when None).

    It gets ``slots`` pool slots, or, with ``judges``, one pending assignment given to each judge directly, counted
    in the campaign's kept counts as the screen writers count theirs (``kept_slots``).
    """
    segment = Segment.objects.get(campaign=campaign, line=line)
    shown = list(candidates) if candidates is not None else list(segment.candidates.order_by("id"))
    screen = Screen.objects.create(campaign=campaign, segment=segment, number=next_screen_number(campaign))
    ScreenCandidate.objects.bulk_create(
        ScreenCandidate(screen=screen, candidate=candidate, position=i) for i, candidate in enumerate(shown)
    )
    start = next_slot_position(campaign)
    owners = list(judges) or [None] * slots
    written = Assignment.objects.bulk_create(
        Assignment(screen=screen, judge=owner, position=start + i) for i, owner in enumerate(owners)
    )
    count_written_slots(campaign, [slot.pk for slot in written])
    return screen


def candidate_of(campaign: Campaign, line: int, system: str) -> Candidate:
    """The candidate ``system`` produced for the segment at ``line``."""
    return Candidate.objects.get(segment__campaign=campaign, segment__line=line, outputs__system__name=system)


def login(user) -> Client:
    """A test client logged in as ``user``."""
    client = Client()
    client.force_login(user)
    return client
