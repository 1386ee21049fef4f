"""Replaying 20 CoNLL-14 rankings of G15's judgments.xml through the browser UI, then exporting Appraise XML.

The 20 items are spread over the file (and include a skipped one, replayed as a flag). Each becomes a screen of
its src-id showing its candidates in its order, given to a judge of its user name; each judge joins by invite
link and ranks by clicking, as the item says. The export must then hold the same 20 items: user, src-id,
skipped, and each translation's systems and rank in order (ids, doc-ids and durations are this run's own).
"""
from __future__ import annotations

import re
from collections import Counter

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Candidate, Judgment
from annotation.services.appraise_import import candidate_lookup, export_appraise_xml
from annotation.services.appraise_xml import parse_appraise_xml
from annotation.services.invites import create_invite
from tests.annotation.factories import add_screen, conll14_campaign

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REPLAYED = 20


def pick_items(items):
    """20 items spread evenly over the file, the last replaced by the first skipped item if none is picked."""
    step = len(items) // REPLAYED
    picked = items[::step][:REPLAYED]
    if not any(item.skipped for item in picked):
        picked[-1] = next(item for item in items if item.skipped)
    return picked


def key(item):
    return (item.user, item.src_id, item.skipped, tuple((tuple(sorted(s)), r) for s, r in item.translations))


def test_replaying_twenty_rankings_through_the_ui_exports_the_same_items(
    live_server, new_page, artifacts, conll14_dir
):
    items = parse_appraise_xml((conll14_dir / "judgments.xml").read_bytes()).items
    picked = pick_items(items)
    assert len({item.user for item in picked}) > 1 and any(item.skipped for item in picked)
    campaign = conll14_campaign(conll14_dir)
    organizer = get_user_model().objects.create_user("orga", password="organizer-pw-1")
    campaign.organizers.add(organizer)
    secrets = {}
    for user in dict.fromkeys(item.user for item in picked):
        _, secrets[user] = create_invite(campaign, user, organizer)
    lookup = candidate_lookup(campaign)
    system_names = re.compile(r"\b(" + "|".join(campaign.systems.values_list("name", flat=True)) + r")\b")
    judges = {j.username: j for j in campaign.judges.model.objects.filter(username__in=secrets)}
    screens = {}
    for item in picked:
        if item.skipped:
            shown = list(Candidate.objects.filter(segment__campaign=campaign, segment__line=item.src_id)[:5])
        else:
            shown = [Candidate.objects.get(pk=lookup[item.src_id][frozenset(s)]) for s, _ in item.translations]
        screens[id(item)] = add_screen(campaign, item.src_id, shown, judges=[judges[item.user]])

    for user, secret in secrets.items():
        page = new_page()
        page.goto(live_server.url + reverse("invite", args=[secret]))
        page.get_by_role("button", name=f"Continue as {user}").click()
        mine = [item for item in picked if item.user == user]
        for k, item in enumerate(mine, start=1):
            expect(page.locator("#screen-counter")).to_have_text(f"Screen {k} of {len(mine)}")
            page.wait_for_load_state("domcontentloaded")
            source = screens[id(item)].segment.source
            expect(page.locator("#source strong")).to_have_text(source)
            if item.skipped:
                page.get_by_role("button", name="Flag…").click()
                page.get_by_label("Unreadable corrections").check()
                page.get_by_role("button", name="Flag screen").click()
                continue
            expect(page.locator(".candidate")).to_have_count(len(item.translations))
            for position, (_, rank) in enumerate(item.translations):
                page.locator(f"#candidate-{position} label.rank").nth(rank - 1).click()
            if len(item.translations) == 5 and not (artifacts / "judge-screen-conll14-1280x800.png").exists():
                submit = page.locator("#submit").bounding_box()
                assert submit["y"] + submit["height"] <= 800, "five corrections and Submit fit 1280x800"
                page.screenshot(path=artifacts / "judge-screen-conll14-1280x800.png")
            assert not system_names.search(page.content()), "no system name on the judge's page"
            page.get_by_role("button", name="Submit").click()
        expect(page.locator("#all-done")).to_be_visible()

    assert Judgment.objects.count() == REPLAYED
    exported = parse_appraise_xml(export_appraise_xml(campaign).encode()).items
    assert len(exported) == REPLAYED
    assert Counter(map(key, exported)) == Counter(map(key, picked))
