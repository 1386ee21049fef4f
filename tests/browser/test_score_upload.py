"""The PRWS campaign page's scores upload in headless Chromium: an organizer uploads a wide CSV without naming its
rater and is told so, with the file to be chosen again and what was typed kept; names the rater, skips the unknown
ref column, and reads the summary. The form passes axe-core. A screenshot goes to test-artifacts/."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse
from playwright.sync_api import expect

from annotation.models import Campaign, Judgment
from tests.annotation.factories import small_campaign
from tests.browser.session import ORGANIZER_PASSWORD, log_in
from tests.browser.test_accessibility import axe_violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: small_campaign's lines 0-5, one column per system and GMEG's ref, which names no system of the campaign.
WIDE = "ZEPHYRSYS,MARMOTFIX,INPUT,ref\n50,60,60,70\n1,2,3,4\n,,,\n90,,90,\n,,,\n10,20.5,30,\n"


def test_an_organizer_imports_a_wide_scores_file_after_naming_its_rater(live_server, new_page, artifacts, tmp_path):
    organizer = get_user_model().objects.create_user("orga", password=ORGANIZER_PASSWORD)
    campaign = small_campaign("scored", mode=Campaign.Mode.PRWS, owner=organizer)
    campaign.organizers.add(organizer)
    scores = tmp_path / "fce-segment-scores.csv"
    scores.write_text(WIDE)
    page = new_page()
    log_in(page, live_server, "orga", ORGANIZER_PASSWORD, reverse("campaign-detail", args=[campaign.pk]))

    form = page.locator("#scores-import")
    form.get_by_label("Import scores").set_input_files(scores)
    form.get_by_label("Wide: one column per system").check()
    form.get_by_label("Skip unknown systems").check()
    form.get_by_role("button", name="Import", exact=True).click()
    messages = page.locator("#appraise .messages")
    expect(messages).to_contain_text("A wide file's ratings belong to one rater: name the rater")
    expect(messages).to_contain_text("Nothing was imported. Choose the file again: a browser does not keep it after "
                                     "an error.")
    expect(form.get_by_label("Wide: one column per system")).to_be_checked()
    expect(form.get_by_label("Skip unknown systems")).to_be_checked()
    assert axe_violations(page, "#appraise") == [], "the scores upload with its refusal"
    assert not Judgment.objects.exists()

    form.get_by_label("Import scores").set_input_files(scores)
    form.get_by_label("Rater (wide)").fill("gmeg-fce")
    form.get_by_role("button", name="Import", exact=True).click()
    expect(messages).to_contain_text("Imported 9 ratings on 4 screens by 1 rater. Skipped 2 cells naming no system of "
                                     "the campaign ('ref').")
    page.screenshot(path=artifacts / "organizer-scores-upload-1280x800.png", full_page=True)
    assert set(Judgment.objects.values_list("assignment__judge__username", flat=True)) == {"gmeg-fce"}
