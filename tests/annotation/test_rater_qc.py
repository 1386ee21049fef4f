"""Rater QC (``annotation.services.rater_qc``) on simulated raters of known behaviour, judging through the queue's
own submit path on the sampler's control screens (``controls``): a rater who ranks or scores at random fails (a)
and (b) and is left out of the analysis, a careful one passes, one who answers in 1 s per screen fails (c); the
organizer's decisions and fresh attempts change what the analysis keeps."""
from __future__ import annotations

import csv
import io
import re
import shutil
import subprocess
import zipfile
from datetime import timedelta

import jsonschema
import numpy as np
import pytest
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from scipy.stats import mannwhitneyu

from annotation.models import Campaign, Candidate, Output, RaterStatus, Screen, System
from annotation.permissions import ORGANIZERS_GROUP
from annotation.services import queue, rater_qc
from annotation.services.importing import CONTROLS_NEED_THE_SOURCE
from annotation.services.screens import create_screens
from gecappraise.p_values import shown_p_value
from ranking.contract_schema import SCHEMA
from ranking.core.parameters import AnalysisParameters
from ranking.reports.formats import render_report
from ranking.runs import create_run, execute_in_process
from tests.ranking.contract_checks import assert_contract

from .factories import judge, small_campaign
from .test_organizer import SOURCE, SYSTEMS, form_data, upload

pytestmark = pytest.mark.django_db

SCREENS = 40


def roles(candidate_ids) -> list[str]:
    """``control``, ``source`` or ``system`` for each candidate, from the kinds of the systems that produced it."""
    kinds: dict[int, set[str]] = {}
    for candidate, kind in Output.objects.filter(candidate_id__in=candidate_ids).values_list("candidate_id",
                                                                                              "system__kind"):
        kinds.setdefault(candidate, set()).add(kind)
    return ["control" if kinds[c] == {System.Kind.CONTROL} else "source" if System.Kind.INPUT in kinds[c] else "system"
            for c in candidate_ids]


def careful_values(roles_shown: list[str], prws: bool, rng: np.random.Generator) -> list[float]:
    """A careful rater: Source+error clearly worst, Source next, the corrections better."""
    if prws:
        ranges = {"control": (0, 25), "source": (40, 60), "system": (65, 100)}
        return [float(rng.integers(*ranges[role])) for role in roles_shown]
    worst = len(roles_shown)
    return [worst if role == "control" else max(worst - 1, 1) if role == "source" else 1 for role in roles_shown]


def random_values(roles_shown: list[str], prws: bool, rng: np.random.Generator) -> list[float]:
    """A rater who answers at random."""
    if prws:
        return [float(rng.integers(0, 101)) for _ in roles_shown]
    return [int(rng.integers(1, len(roles_shown) + 1)) for _ in roles_shown]


def judge_all(campaign: Campaign, rater, behave, seconds: float, rng: np.random.Generator) -> int:
    """Serve and submit every screen the queue gives ``rater``, each taking ``seconds``; return how many."""
    prws = campaign.mode == Campaign.Mode.PRWS
    clock = timezone.now()
    done = 0
    while (assignment := queue.next_assignment(campaign, rater, now=clock)) is not None:
        shown = list(assignment.screen.slots.order_by("position").values_list("candidate_id", flat=True))
        values = behave(roles(shown), prws, rng)
        clock += timedelta(seconds=seconds)
        keys = queue.candidate_keys(assignment)
        if prws:
            queue.submit_scores(assignment.token, rater, values, [False] * len(values), keys, now=clock)
        else:
            queue.submit_ranking(assignment.token, rater, values, keys, now=clock)
        done += 1
    return done


def analysis(campaign: Campaign) -> dict:
    return execute_in_process(create_run(campaign, AnalysisParameters(bootstrap=10, seed=3))).result


@pytest.fixture(params=[Campaign.Mode.RANKING, Campaign.Mode.PRWS])
def judged(request):
    """A campaign whose sampler made half the screens control screens, judged by a careful, a random and a
    hasty (careful, 1 s per screen) rater."""
    campaign = small_campaign(f"qc-{request.param}", mode=request.param, redundancy=3, sampling="uniform",
                              control_share=0.5, qc_min_median_seconds=5)
    create_screens(campaign, SCREENS)
    rng = np.random.default_rng(7)
    raters = {name: judge(name, campaign) for name in ("careful", "random", "hasty")}
    judge_all(campaign, raters["careful"], careful_values, 20, rng)
    judge_all(campaign, raters["random"], random_values, 20, rng)
    judge_all(campaign, raters["hasty"], careful_values, 1, rng)
    return campaign, raters


def organizer_client(campaign: Campaign) -> tuple:
    """An organizer of ``campaign`` and a client logged in as them."""
    organizer = judge("boss")
    campaign.organizers.add(organizer)
    client = Client()
    client.force_login(organizer)
    return organizer, client


def test_the_sampler_marks_its_control_screens_and_shows_source_beside_source_error():
    campaign = small_campaign("controls", sampling="uniform", control_share=0.25)
    create_screens(campaign, SCREENS)
    controls = Screen.objects.filter(campaign=campaign, control=True)
    assert controls.count() == SCREENS // 4
    for screen in controls:
        shown = list(screen.slots.values_list("candidate_id", flat=True))
        assert sorted(set(roles(shown)) & {"control", "source"}) == ["control", "source"]
        assert len(shown) <= campaign.max_candidates
        corrupted = Candidate.objects.get(pk__in=shown, outputs__system__kind=System.Kind.CONTROL)
        assert corrupted.text != screen.segment.source
    others = Screen.objects.filter(campaign=campaign, control=False)
    assert not others.filter(slots__candidate__outputs__system__kind=System.Kind.CONTROL).exists()


def test_controls_need_the_source_as_a_system():
    campaign = small_campaign("no-source", sampling="uniform", control_share=0.5)
    campaign.systems.filter(kind=System.Kind.INPUT).update(kind=System.Kind.SYSTEM)
    with pytest.raises(ValueError, match="import the source as a system"):
        create_screens(campaign, 5)
    assert not Screen.objects.filter(campaign=campaign).exists()


@pytest.mark.parametrize("archive", [False, True], ids=["files", "archive"])
def test_a_campaign_with_control_screens_and_without_the_source_judged_is_refused(archive):
    """Such a campaign was made, and every Sample screens refused ("import the source as a system too ... or set
    the share of control screens to 0"), a setting no page changes: the campaign had to be made again."""
    organizer = judge("olga")
    organizer.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    client = Client()
    client.force_login(organizer)
    files = {"source": upload("source", SOURCE), "systems": [upload(n, d) for n, d in SYSTEMS.items()]}
    if archive:
        packed = io.BytesIO()
        with zipfile.ZipFile(packed, "w") as zipped:
            zipped.writestr("source", SOURCE)
            for name, data in SYSTEMS.items():
                zipped.writestr(name, data)
        files = {"archive": upload("test-set.zip", packed.getvalue())}
    response = client.post(reverse("campaign-create"), form_data(control_share="0.5", source_is_system="", **files))
    assert response.status_code == 400
    assert response.context["form"].non_field_errors() == [CONTROLS_NEED_THE_SOURCE]
    assert not Campaign.objects.exists()


def test_verdicts_of_simulated_raters(judged):
    campaign, raters = judged
    verdicts = {verdict.judge: verdict for verdict in rater_qc.campaign_verdicts(campaign)}
    careful, random, hasty = verdicts["careful"], verdicts["random"], verdicts["hasty"]
    assert careful.screens == random.screens == hasty.screens == SCREENS
    assert careful.passed and not careful.excluded and careful.control_rate == 1.0 and careful.p_value <= 0.01
    assert careful.control_screens >= 15 and careful.median_seconds == 20.0
    assert random.control_rate < 0.7 and random.p_value > 0.01 and random.excluded
    assert [failure[:3] for failure in random.failures] == ["(a)", "(b)"]
    assert hasty.control_rate == 1.0 and hasty.excluded and [f[:3] for f in hasty.failures] == ["(c)"]
    assert hasty.median_seconds == 1.0 and "median 1.0 s per screen < 5 s" in hasty.why
    assert rater_qc.verdict_for(campaign, raters["random"]) == random


def test_the_failed_test_b_says_what_the_judges_did(judged):
    """(b) failed with "Source+error not scored below the rest" in ranking campaigns too, where judges rank: the
    verdict, the rater QC page and the dashboard say "ranked" there and "scored" in a PRWS campaign."""
    campaign, raters = judged
    did = "scored" if campaign.mode == Campaign.Mode.PRWS else "ranked"
    failure = next(f for f in rater_qc.verdict_for(campaign, raters["random"]).failures if f.startswith("(b)"))
    assert failure.startswith(f"(b) Source+error not {did} below the rest (p = ")
    organizer, client = organizer_client(campaign)
    page = client.get(reverse("campaign-raters", args=[campaign.pk])).content.decode()
    row = page[page.index('id="rater-random"'):page.index("</tr>", page.index('id="rater-random"'))]
    assert f"(b) Source+error not {did} below the rest" in row
    rows = client.get(reverse("campaign-dashboard", args=[campaign.pk])).json()["rater_qc"]["raters"]
    assert f"(b) Source+error not {did} below the rest" in {r["rater"]: r for r in rows}["random"]["why"]


def test_the_p_value_reads_alike_on_the_page_and_in_the_why(judged):
    """The Rater QC page wrote a p-value with up to four decimals (0.4525, but 0.45 for 0.4500 and 0 for 0.00001),
    the verdict's why with three significant digits (p = 0.452), the dashboard with three too: now all four
    decimals (gecappraise.p_values; dashboard.js pValue)."""
    campaign, raters = judged
    random = rater_qc.verdict_for(campaign, raters["random"])
    written = f"{random.p_value:.4f}"
    assert random.p_value_text == written and f"(p = {written};" in random.why
    organizer, client = organizer_client(campaign)
    page = client.get(reverse("campaign-raters", args=[campaign.pk])).content.decode()
    row = page[page.index('id="rater-random"'):page.index("</tr>", page.index('id="rater-random"'))]
    assert f'<td class="number">{written}</td>' in row


@pytest.mark.parametrize(("p_value", "written"), [
    (0.45253, "0.4525"), (0.5, "0.5000"), (1.0, "1.0000"), (0.00012, "0.0001"), (0.00004, "< 0.0001"),
    (0.0, "< 0.0001"),
])
def test_a_p_value_is_written_with_four_decimals(p_value, written):
    assert shown_p_value(p_value) == written


def from_all_judgments(campaign: Campaign) -> list[rater_qc.RaterVerdict]:
    """The verdicts computed afresh (no kept tallies)."""
    cache.clear()
    return rater_qc.campaign_verdicts(campaign)


@pytest.mark.parametrize("mode", [Campaign.Mode.RANKING, Campaign.Mode.PRWS])
def test_kept_tallies_give_the_verdicts_of_all_judgments_and_read_only_what_is_new(mode, monkeypatch):
    campaign = small_campaign(f"kept-{mode}", mode=mode, redundancy=3, sampling="uniform", control_share=0.5,
                              qc_min_median_seconds=5)
    create_screens(campaign, SCREENS)
    rng = np.random.default_rng(11)
    raters = {name: judge(name, campaign) for name in ("careful", "random", "hasty")}
    computed: list[str] = []
    verdict = rater_qc._verdict

    def counted(username, *args):
        computed.append(username)
        return verdict(username, *args)

    monkeypatch.setattr(rater_qc, "_verdict", counted)
    cache.clear()
    judge_all(campaign, raters["careful"], careful_values, 20, rng)
    assert rater_qc.campaign_verdicts(campaign) == from_all_judgments(campaign)
    computed.clear()
    assert [v.judge for v in rater_qc.campaign_verdicts(campaign)] == ["careful"] and computed == [], "nothing new"
    judge_all(campaign, raters["random"], random_values, 20, rng)
    kept = rater_qc.campaign_verdicts(campaign)
    assert computed == ["random"], "only the rater with new judgments"
    assert kept == from_all_judgments(campaign) and kept[1].excluded
    judge_all(campaign, raters["hasty"], careful_values, 1, rng)
    assert rater_qc.campaign_verdicts(campaign) == from_all_judgments(campaign)
    last = queue.last_submitted(campaign, raters["careful"])
    queue.undo_last(campaign, raters["careful"], last.token)  # a judgment the tallies hold is deleted
    undone = rater_qc.campaign_verdicts(campaign)
    assert undone == from_all_judgments(campaign) and undone[0].screens == kept[0].screens - 1
    rater_qc.set_decision(campaign, raters["random"], RaterStatus.Decision.INCLUDE)
    decided = rater_qc.campaign_verdicts(campaign)
    assert decided == from_all_judgments(campaign) and not decided[2].excluded
    rater_qc.start_fresh_attempt(campaign, raters["hasty"])
    judge_all(campaign, raters["hasty"], careful_values, 20, rng)
    assert rater_qc.campaign_verdicts(campaign) == from_all_judgments(campaign)
    Campaign.objects.filter(pk=campaign.pk).update(qc_control_threshold=0.99)
    campaign.refresh_from_db()
    assert rater_qc.campaign_verdicts(campaign) == from_all_judgments(campaign)


def test_excluded_raters_drop_out_of_the_analysis_until_included_by_hand(judged, tmp_path):
    campaign, raters = judged
    result = analysis(campaign)
    jsonschema.Draft202012Validator(SCHEMA).validate(result)
    assert sorted(rater["rater"] for rater in result["rater_qc"]["excluded"]) == ["hasty", "random"]
    assert result["rater_qc"]["rule"]["control_threshold"] == 0.7 and result["rater_qc"]["rule"]["p_value"] == 0.01
    if campaign.mode == Campaign.Mode.PRWS:
        assert result["prws"]["quality"]["threshold"] == 0.7
        assert sorted(row["rater"] for row in result["prws"]["excluded_raters"]) == ["hasty", "random"]
    assert set(result["pairs"]["per_judge"]) == {"careful"}
    assert_contract(result)
    html = render_report(result, "html")
    table = html[html.index('id="rater-qc-excluded"'):html.index("</table>", html.index('id="rater-qc-excluded"'))]
    assert "<td>random</td>" in table and "<td>hasty</td>" in table and "median 1.0 s per screen" in table
    latex = render_report(result, "latex", standalone=True)
    assert "Raters excluded by quality control" in latex and "random &" in latex and "hasty &" in latex
    if shutil.which("pdflatex"):
        (tmp_path / "report.tex").write_text(latex, encoding="utf-8")
        done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "report.tex"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-3000:]
    rows = list(csv.DictReader(io.StringIO(render_report(result, "csv"))))
    hasty = {
        row["key"]: row["value"] for row in rows if row["section"] == "rater_qc_excluded" and row["judge"] == "hasty"
    }
    assert hasty["median_seconds"] == "1.0" and hasty["screens"] == str(SCREENS) and hasty["decision"] == "auto"
    rater_qc.set_decision(campaign, raters["random"], RaterStatus.Decision.INCLUDE)
    rater_qc.set_decision(campaign, raters["careful"], RaterStatus.Decision.EXCLUDE)
    result = analysis(campaign)
    jsonschema.Draft202012Validator(SCHEMA).validate(result)
    assert set(result["pairs"]["per_judge"]) == {"random"}
    assert result["rater_qc"]["included_by_hand"] == ["random"]
    assert {r["rater"]: r["why"][:17] for r in result["rater_qc"]["excluded"]} == {
        "careful": "excluded by hand ", "hasty": "(c) median 1.0 s "}
    campaign.qc_control_threshold = 0.8
    campaign.save(update_fields=["qc_control_threshold"])
    result = analysis(campaign)
    assert result["rater_qc"]["rule"]["control_threshold"] == 0.8
    if campaign.mode == Campaign.Mode.PRWS:
        assert result["prws"]["quality"]["threshold"] == 0.8


def test_a_fresh_attempt_keeps_the_work_but_leaves_it_out(judged):
    campaign, raters = judged
    hasty = raters["hasty"]
    status = rater_qc.start_fresh_attempt(campaign, hasty)
    assert status.attempt == 2
    verdict = rater_qc.verdict_for(campaign, hasty)
    assert verdict.attempt == 2 and verdict.screens == 0 and verdict.passed and not verdict.excluded
    result = analysis(campaign)
    assert result["rater_qc"]["earlier_attempts"]["hasty"]["attempts"] == 1
    assert "hasty" not in result["pairs"]["per_judge"]
    with pytest.raises(ValueError, match="no judgments in attempt 2"):
        rater_qc.start_fresh_attempt(campaign, hasty)


@pytest.mark.parametrize("mode", [Campaign.Mode.RANKING, Campaign.Mode.PRWS])
def test_test_b_waits_until_a_rater_could_pass_it(mode):
    """A new rater who put Source+error below the rest on their first two control screens failed (b) at once (no
    way of judging two could reach p <= 0.01), and the live leaderboard left them out until the organizer included
    them by hand. (b) neither passes nor fails while even that could not pass; once it could, it decides as
    before."""
    campaign = small_campaign(f"early-{mode}", mode=mode, sampling="uniform", control_share=1.0)
    create_screens(campaign, SCREENS)
    rng = np.random.default_rng(5)
    ann = judge("ann", campaign)
    prws = mode == Campaign.Mode.PRWS
    for _ in range(2):
        assignment = queue.next_assignment(campaign, ann)
        shown = list(assignment.screen.slots.order_by("position").values_list("candidate_id", flat=True))
        values, keys = careful_values(roles(shown), prws, rng), queue.candidate_keys(assignment)
        if prws:
            queue.submit_scores(assignment.token, ann, values, [False] * len(values), keys)
        else:
            queue.submit_ranking(assignment.token, ann, values, keys)
    early = rater_qc.verdict_for(campaign, ann)
    assert early.p_value > 0.01 and early.passed and not early.excluded
    assert early.why.startswith("every check with data passed; (b) too few values to tell yet: even with "
                                "Source+error ")
    judge_all(campaign, ann, random_values, 20, rng)
    later = rater_qc.verdict_for(campaign, ann)
    assert later.pending is None and later.excluded
    assert any(failure.startswith("(b) Source+error not") for failure in later.failures)


@pytest.mark.parametrize(("limit", "why"), [
    (0, "nothing to check yet: no control screen judged, no time limit set"),
    (1, "every check with data passed"),
])
def test_a_rater_no_check_had_data_for_is_said_so(limit, why):
    """Without control screens and time limits (the defaults) no check runs; the page said "every check with data
    passed" of every rater, as if each had been checked and passed."""
    campaign = small_campaign("unchecked", sampling="uniform", qc_min_total_seconds=limit)
    create_screens(campaign, 2)
    ann = judge("ann", campaign)
    served = queue.next_assignment(campaign, ann, now=timezone.now() - timedelta(seconds=30))
    keys = queue.candidate_keys(served)
    queue.submit_ranking(served.token, ann, list(range(1, len(keys) + 1)), keys)
    (verdict,) = rater_qc.campaign_verdicts(campaign)
    assert (verdict.why, verdict.passed, verdict.excluded) == (why, True, False)
    _, client = organizer_client(campaign)
    assert why in client.get(reverse("campaign-raters", args=[campaign.pk])).content.decode()


def test_decisions_are_checked():
    campaign = small_campaign("decisions")
    outsider = judge("outsider")
    with pytest.raises(ValueError, match="not a judge"):
        rater_qc.set_decision(campaign, outsider, RaterStatus.Decision.EXCLUDE)
    with pytest.raises(ValueError, match="unknown decision"):
        rater_qc.set_decision(campaign, judge("ann", campaign), "maybe")
    assert not RaterStatus.objects.exists()


def test_the_organizer_sees_the_numbers_and_decides_by_post(judged):
    campaign, raters = judged
    organizer, client = organizer_client(campaign)
    page = client.get(reverse("campaign-raters", args=[campaign.pk])).content.decode()
    row = page[page.index('id="rater-random"'):page.index("</tr>", page.index('id="rater-random"'))]
    assert "Excluded" in row and "(a) Source+error judged worse than Source on" in row and "(b)" in row
    hasty = page[page.index('id="rater-hasty"'):page.index("</tr>", page.index('id="rater-hasty"'))]
    assert "1.0 s" in hasty and "median 1.0 s per screen &lt; 5 s" in hasty
    url = reverse("campaign-rater-decision", args=[campaign.pk])
    response = client.post(url, {"judge": "random", "action": "include"}, follow=True)
    assert "random is included by hand" in response.content.decode()
    assert RaterStatus.objects.get(judge=raters["random"]).decided_by == organizer
    assert not rater_qc.verdict_for(campaign, raters["random"]).excluded
    response = client.post(url, {"judge": "hasty", "action": "fresh"}, follow=True)
    assert "hasty starts attempt 2" in response.content.decode()
    response = client.post(url, {"judge": "nobody", "action": "exclude"}, follow=True)
    assert f"Nobody is not a judge of campaign {campaign.name}. Nothing was changed." in response.content.decode()
    judge("elsewhere", small_campaign("elsewhere"))
    exists = client.post(url, {"judge": "elsewhere", "action": "exclude"}, follow=True).content.decode()
    missing = client.post(url, {"judge": "elswhere", "action": "exclude"}, follow=True).content.decode()
    csrf = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"')
    assert csrf.sub("", exists).replace("lsewhere", "NAME") == csrf.sub("", missing).replace("lswhere", "NAME"), \
        "an account elsewhere is told from none"
    response = client.post(url, {"judge": "careful", "action": "maybe"}, follow=True)
    assert "Nothing was changed" in response.content.decode()
    assert not RaterStatus.objects.filter(judge=raters["careful"]).exists()


def test_other_organizers_and_judges_cannot_decide(judged):
    campaign, raters = judged
    for user in (raters["careful"], judge("stranger")):
        client = Client()
        client.force_login(user)
        assert client.get(reverse("campaign-raters", args=[campaign.pk])).status_code == 404
        response = client.post(reverse("campaign-rater-decision", args=[campaign.pk]),
                               {"judge": "random", "action": "include"})
        assert response.status_code == 404
    assert not RaterStatus.objects.exists()


def test_the_new_campaign_form_takes_the_control_share_and_thresholds():
    organizer = judge("olga")
    organizer.groups.add(Group.objects.get_or_create(name=ORGANIZERS_GROUP)[0])
    client = Client()
    client.force_login(organizer)

    def create(**fields):
        return client.post(reverse("campaign-create"), form_data(
            source=upload("source", SOURCE), systems=[upload(n, d) for n, d in SYSTEMS.items()], **fields))

    page = create(control_share="1.5", qc_p_value="0").content.decode()
    assert "Ensure this value is less than or equal to 1" in page and "The p-value must be above 0." in page
    assert not Campaign.objects.filter(name="web").exists()
    create(control_share="0.25", qc_control_threshold="0.8", qc_min_median_seconds="4")
    campaign = Campaign.objects.get(name="web")
    assert (campaign.control_share, campaign.qc_control_threshold, campaign.qc_p_value) == (0.25, 0.8, 0.01)
    assert (campaign.qc_min_total_seconds, campaign.qc_min_median_seconds) == (0.0, 4.0)


def test_attention_checks_of_a_prws_campaign_count_the_control_scored_lowest():
    campaign = small_campaign("prws-attention", mode=Campaign.Mode.PRWS, sampling="uniform", redundancy=2)
    create_screens(campaign, 6)
    organizer, client = organizer_client(campaign)
    client.post(reverse("campaign-attention", args=[campaign.pk]), {"percent": "100"})
    assert Screen.objects.filter(campaign=campaign, control=True).count() == 6
    rng = np.random.default_rng(3)
    judge_all(campaign, judge("careful", campaign), careful_values, 10, rng)
    judge_all(campaign, judge("careless", campaign), lambda roles_shown, prws, rng: [50.0] * len(roles_shown), 10, rng)
    rows = {row["judge"]: row for row in client.get(reverse("campaign-dashboard", args=[campaign.pk])).json()["judges"]}
    assert (rows["careful"]["checks"], rows["careful"]["ranked_last"]) == (6, 6)
    assert (rows["careless"]["checks"], rows["careless"]["ranked_last"]) == (6, 0), "all equal catches nothing"
    verdicts = {verdict.judge: verdict for verdict in rater_qc.campaign_verdicts(campaign)}
    assert verdicts["careful"].control_rate == 1.0 and verdicts["careless"].control_rate == 0.0
    assert verdicts["careless"].p_value is None and verdicts["careless"].excluded


def test_the_live_leaderboard_leaves_out_the_excluded_raters_until_included(judged):
    campaign, raters = judged
    organizer, client = organizer_client(campaign)
    url = reverse("campaign-leaderboard", args=[campaign.pk])
    snapshot = client.get(url).json()["snapshot"]
    assert snapshot["judgments"] == 3 * SCREENS and snapshot["rankings"] == SCREENS, "only the careful rater's"
    rater_qc.set_decision(campaign, raters["random"], RaterStatus.Decision.INCLUDE)
    assert client.get(url).json()["snapshot"]["rankings"] == 2 * SCREENS, "a decision rebuilds the counts"


@pytest.mark.parametrize("mode", [Campaign.Mode.RANKING, Campaign.Mode.PRWS])
def test_when_rater_qc_excludes_every_rater_the_leaderboard_and_the_analysis_say_so(mode):
    """40 judgments, both raters excluded: the leaderboard said "no pairwise judgment yet" and the analysis gave
    every Expected Wins and TrueSkill system "no judgment of this system" (while a PRWS analysis's ``prws`` key
    said that only excluded raters rated them). They name rater QC now; the leaderboard links to its page."""
    campaign = small_campaign(f"all-out-{mode}", mode=mode, redundancy=2, sampling="uniform", control_share=0.5,
                              qc_min_median_seconds=5)
    create_screens(campaign, SCREENS // 2)
    rng = np.random.default_rng(7)
    raters = {name: judge(name, campaign) for name in ("random", "hasty")}
    judge_all(campaign, raters["random"], random_values, 20, rng)
    judge_all(campaign, raters["hasty"], careful_values, 1, rng)
    assert [v.excluded for v in rater_qc.campaign_verdicts(campaign)] == [True, True]
    organizer, client = organizer_client(campaign)
    url = reverse("campaign-leaderboard", args=[campaign.pk])
    board = client.get(url).json()
    assert board["snapshot"]["judgments"] == SCREENS and board["snapshot"]["rankings"] == 0
    assert board["reason"] == "the judgments so far are all from raters whom rater QC excluded"
    assert board["rater_qc_url"] == reverse("campaign-raters", args=[campaign.pk])
    assert board["system_pairs"]["reason"] == board["reason"]
    assert all(row["score"] is None for row in board["systems"])

    result = analysis(campaign)
    assert_contract(result)
    jsonschema.Draft202012Validator(SCHEMA).validate(result)
    for method in ("expected_wins", "trueskill"):
        assert {row["system"]: row["reason"] for row in result[method]["systems"]} == dict.fromkeys(
            ("INPUT", "MARMOTFIX", "QUOKKAGEC", "ZEPHYRSYS"), "every rater who judged this system was excluded by "
                                                                "rater QC")
    if mode == Campaign.Mode.PRWS:
        assert {row["reason"] for row in result["prws"]["systems"] if not row["control"]} == {
            "rated only by raters whom the quality check excluded"}

    rater_qc.start_fresh_attempt(campaign, raters["hasty"])
    board = client.get(url).json()
    assert board["reason"] == ("the judgments so far are all ones rater QC leaves out: from raters it excluded, or "
                               "from attempts before a fresh one")
    assert board["rater_qc_url"] == reverse("campaign-raters", args=[campaign.pk])
    rater_qc.set_decision(campaign, raters["random"], RaterStatus.Decision.INCLUDE)
    board = client.get(url).json()
    assert board["reason"] is None and "rater_qc_url" not in board


def test_the_dashboard_shows_every_raters_numbers_and_verdict_and_follows_decisions(judged):
    campaign, raters = judged
    organizer, client = organizer_client(campaign)

    def dashboard_qc() -> dict:
        return client.get(reverse("campaign-dashboard", args=[campaign.pk])).json()["rater_qc"]

    qc = dashboard_qc()
    by_rater = {row["rater"]: row for row in qc["raters"]}
    assert sorted(by_rater) == ["careful", "hasty", "random"] and qc["excluded"] == 2
    assert qc["rule"]["control_threshold"] == campaign.qc_control_threshold
    expected = {v.judge: v.as_json() for v in rater_qc.campaign_verdicts(campaign)}
    assert by_rater == expected
    assert by_rater["random"]["why"].startswith("(a) Source+error judged worse") and by_rater["random"]["excluded"]
    rater_qc.decide(campaign, "random", RaterStatus.Decision.INCLUDE, organizer)
    qc = dashboard_qc()
    assert qc["excluded"] == 1
    assert {row["rater"]: row for row in qc["raters"]}["random"]["why"].startswith("included by hand")


def test_the_rest_api_answers_json_nested_too_deeply_with_a_400():
    # Lists nested 100,000 deep (200 kB; 2,000 do it) hit Python's recursion limit in the JSON parser: a 500
    # (RecursionError).
    campaign = small_campaign("nested")
    _, client = organizer_client(campaign)
    response = client.post(f"/api/campaigns/{campaign.pk}/raters/", "[" * 100_000 + "]" * 100_000,
                           content_type="application/json")
    assert response.status_code == 400, response.content[:200]
    assert response.json() == {"detail": "JSON parse error - nested too deeply."}
    assert not RaterStatus.objects.exists()


@pytest.mark.parametrize(("body", "answer"), [
    ('{"judge": "hasty", "action": "include", "action": "exclude"}',
     {"detail": "JSON parse error - the key 'action' is given more than once"}),
    ('{"judge": "hasty", "action": "exclude", "reason": "slow"}',
     {"reason": ["This endpoint takes no part named 'reason'; it takes: judge, action."]}),
])
def test_the_rest_api_refuses_a_repeated_or_unknown_key_and_decides_nothing(body, answer):
    # A key given twice took its last value silently (json keeps the last), so this excluded the rater.
    campaign = small_campaign("keys")
    judge("hasty", campaign)
    _, client = organizer_client(campaign)
    response = client.post(f"/api/campaigns/{campaign.pk}/raters/", body, content_type="application/json")
    assert response.status_code == 400 and response.json() == answer
    assert not RaterStatus.objects.exists()


SURROGATE_ESCAPE = "\\ud800"


def lone_surrogate_at(where: str) -> str:
    return (f"JSON parse error - {where} holds a lone surrogate (an escape from \\ud800 to \\udfff without its pair), "
            "which is not a Unicode character.")


def long_integer_at(where: str, digits: str) -> str:
    return f"JSON parse error - {where} is a whole number of {digits} digits; a number may have at most 4,300."


def huge_number_at(where: str) -> str:
    return f"JSON parse error - {where} is a number beyond the largest one can hold (about 1.8e308)."


@pytest.mark.parametrize(("body", "detail"), [
    # JSON's \ud800 escape alone is no Unicode character: an action holding one was a 500 (the 400 naming the choice
    # could not be encoded as UTF-8), a judge holding one a 400 with Python's codec error from the user lookup.
    (f'{{"judge": "hasty", "action": "{SURROGATE_ESCAPE}"}}', lone_surrogate_at("['action']")),
    (f'{{"judge": "ha{SURROGATE_ESCAPE}sty", "action": "exclude"}}', lone_surrogate_at("['judge']")),
    (f'{{"judge": "hasty", "action": "exclude", "x{SURROGATE_ESCAPE}": 1}}', lone_surrogate_at("a key in the body")),
    (f'{{"judge": "hasty", "action": ["exclude", "{SURROGATE_ESCAPE}"]}}', lone_surrogate_at("['action'][1]")),
    ("[" * 900 + f'"{SURROGATE_ESCAPE}"' + "]" * 900, lone_surrogate_at("[0]" * 900)),
    # Python converts integers of at most 4,300 digits: a longer one was a 400 with Python's own message ("Exceeds
    # the limit (4300 digits) for integer string conversion: value has 5001 digits; use
    # sys.set_int_max_str_digits() to increase the limit"), naming neither the field nor anything one could act on.
    ('{"judge": 1' + "0" * 5000 + ', "action": "exclude"}', long_integer_at("['judge']", "5,001")),
    ('{"judge": "hasty", "action": ["exclude", -' + "9" * 4301 + "]}", long_integer_at("['action'][1]", "4,301")),
    ("7" * 10000, long_integer_at("the body", "10,000")),
    # A number past the largest float was read as infinity, which no JSON answer or PostgreSQL column can hold.
    ('{"judge": 1e400, "action": "exclude"}', huge_number_at("['judge']")),
    ('{"judge": "hasty", "action": ["exclude", -1.5e999]}', huge_number_at("['action'][1]")),
])
def test_the_rest_api_refuses_what_json_cannot_hold_naming_where_it_is_and_decides_nothing(body, detail):
    campaign = small_campaign("unreadable")
    judge("hasty", campaign)
    _, client = organizer_client(campaign)
    response = client.post(f"/api/campaigns/{campaign.pk}/raters/", body, content_type="application/json")
    assert response.status_code == 400, response.content[:200]
    assert response.json() == {"detail": detail}
    assert not RaterStatus.objects.exists()


def test_the_rest_api_reads_an_integer_of_4300_digits_as_a_number():
    campaign = small_campaign("digits")
    _, client = organizer_client(campaign)
    response = client.post(f"/api/campaigns/{campaign.pk}/raters/", '{"judge": 1' + "0" * 4299 + ', "action": "auto"}',
                           content_type="application/json")
    assert response.status_code == 400
    assert response.json() == {"judge": ["Give 'judge' as a string, not a number."]}


def test_the_rest_api_takes_a_surrogate_pair_as_the_character_it_encodes():
    campaign = small_campaign("pairs")
    _, client = organizer_client(campaign)
    response = client.post(f"/api/campaigns/{campaign.pk}/raters/", '{"judge": "\\ud83d\\ude00", "action": "auto"}',
                           content_type="application/json")
    assert response.status_code == 400 and response.json() == {
        "judge": [f"\U0001f600 is not a judge of campaign {campaign.name}"]}


def test_the_rest_api_lists_the_verdicts_and_takes_decisions(judged):
    campaign, raters = judged
    organizer, client = organizer_client(campaign)
    url = f"/api/campaigns/{campaign.pk}/raters/"
    body = client.get(url).json()
    assert body["rule"] == rater_qc.QcRule.of(campaign).as_json()
    assert [row["rater"] for row in body["raters"]] == ["careful", "hasty", "random"]
    response = client.post(url, {"judge": "careful", "action": "exclude"}, content_type="application/json")
    assert response.status_code == 200, response.content
    assert response.json()["excluded"] and response.json()["decision"] == "exclude"
    assert RaterStatus.objects.get(judge=raters["careful"]).decided_by == organizer
    response = client.post(url, {"judge": "hasty", "action": "fresh"}, content_type="application/json")
    assert response.status_code == 200 and response.json()["attempt"] == 2 and response.json()["screens"] == 0
    for data, field in (({"judge": "nobody", "action": "exclude"}, "judge"),
                        ({"judge": "random", "action": "maybe"}, "action"),
                        ({"action": "exclude"}, "judge")):
        response = client.post(url, data, content_type="application/json")
        assert response.status_code == 400 and field in response.json(), response.content
    for data in ('["random", "exclude"]', '"random"', "3", "null"):  # JSON, but not an object: each was a 500
        response = client.post(url, data, content_type="application/json")
        assert response.status_code == 400, response.content
        assert response.json() == {"__all__": ["Send an object with the fields 'judge' and 'action'."]}
    assert not RaterStatus.objects.filter(judge=raters["random"]).exists()


@pytest.mark.parametrize("scale", [1.0, 1e-322])
def test_check_b_is_the_same_at_any_scale_of_the_scores(scale):
    """Scores of 0 to 100 may be subnormal (1e-320 is a plain number): their standard deviation underflowed to 0 and
    check (b) said "all of the rater's values are equal" of a rater who scored the control far below the rest.
    z-scoring changes no rank, so the Mann-Whitney test is that of the values, at any scale."""
    others, controls = [80.0, 90.0, 70.0, 85.0, 60.0], [20.0, 10.0, 30.0]
    values = np.array(others + controls) * scale
    is_control = np.array([False] * len(others) + [True] * len(controls))
    p_value, reason = rater_qc._mann_whitney(values, is_control)
    assert reason is None
    assert p_value == pytest.approx(mannwhitneyu(others, controls, alternative="greater").pvalue)


@pytest.mark.parametrize(("value", "kind"), [("5", "a number"), ("5.0", "a number"), ("true", "true or false"),
                                             ('["5"]', "an array"), ('{"name": "5"}', "an object")])
def test_the_rest_api_takes_the_judge_and_the_action_as_strings_only(value, kind):
    # The form read the JSON value as text: {"judge": 5} excluded the judge named 5, ["5"] was looked up as "['5']".
    campaign = small_campaign("types")
    judge("5", campaign)
    _, client = organizer_client(campaign)
    url = f"/api/campaigns/{campaign.pk}/raters/"
    for body, field in ((f'{{"judge": {value}, "action": "exclude"}}', "judge"),
                        (f'{{"judge": "5", "action": {value}}}', "action")):
        response = client.post(url, body, content_type="application/json")
        assert response.status_code == 400 and response.json() == {field: [f"Give {field!r} as a string, not {kind}."]}
    assert not RaterStatus.objects.exists()
    done = client.post(url, '{"judge": "5", "action": "exclude"}', content_type="application/json")
    assert done.status_code == 200 and done.json()["excluded"]
