"""Every URL of the product (pages, API, admin), enumerated from the URL configuration, against every role.

``EXPECTED`` holds one rule per URL pattern: a URL added without a rule here fails
``test_every_url_pattern_has_a_rule``, so nobody adds a page or an endpoint without saying who may use it.
Each rule gives, per role, what a request gets: ``OK`` (2xx, or a redirect elsewhere than the login page),
``LOGIN`` (a redirect to the login page; ``LOGGED_OUT``, a 401, from a page's JSON request), ``NO`` (403 or 404)
or ``NOT_ALLOWED`` (405). Pages are requested with GET; URLs that only take POST are posted to by the roles that
must be refused (the allowed ones are not, so that the fixtures stay as they are); the API's endpoints are asked
OPTIONS by every role. The Django admin's URLs,
generated per registered model, share one rule.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from annotation.models import BackgroundJob, Campaign, ScreenJob, Segment
from annotation.permissions import ORGANIZERS_GROUP
from annotation.services.invites import create_invite
from annotation.services.queue import next_assignment
from annotation.services.training import add_training_screen, answer_training
from ranking.models import AnalysisRun

from .factories import add_screen, small_campaign

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "judge", "other_judge", "organizer", "other_organizer", "admin")
OK, LOGIN, LOGGED_OUT, NO, NOT_ALLOWED = "ok", "login", "401", "refused", "405"


def rule(*outcomes: str) -> dict[str, str]:
    return dict(zip(ROLES, outcomes, strict=True))


EVERYONE = rule(OK, OK, OK, OK, OK, OK)
NOBODY = rule(NO, NO, NO, NO, NO, NO)
LOGGED_IN = rule(LOGIN, OK, OK, OK, OK, OK)
ITS_JUDGE = rule(LOGIN, OK, NO, NO, NO, NO)
ITS_ORGANIZERS = rule(LOGIN, NO, NO, OK, NO, OK)
ORGANIZERS = rule(LOGIN, NO, NO, OK, OK, OK)
API_LOGGED_IN = rule(NO, OK, OK, OK, OK, OK)
API_ORGANIZERS = rule(NO, NO, NO, OK, OK, OK)
API_ITS_ORGANIZERS = rule(NO, NO, NO, OK, NO, OK)
#: The admin site: its login page for everyone but the admin, who gets in (answered, or refused by the page itself:
#: an add page of a read-only model, an autocomplete without its parameters).
ENTERS = "not sent to log in"
ADMIN_SITE = rule(LOGIN, LOGIN, LOGIN, LOGIN, LOGIN, ENTERS)


@dataclass(frozen=True)
class Check:
    method: str
    expected: dict[str, str]


def get(expected: dict[str, str]) -> list[Check]:
    return [Check("GET", expected)]


def post(expected: dict[str, str]) -> list[Check]:
    return [Check("POST", expected)]


def api(*checks: list[Check]) -> list[Check]:
    """An API endpoint's ``checks`` and its OPTIONS, refused as its first method is (a campaign the user may not
    see: 404)."""
    listed = [check for group in checks for check in group]
    return [*listed, Check("OPTIONS", listed[0].expected)]


#: URL pattern (as the URL configuration writes it) -> checks.
EXPECTED: dict[str, list[Check]] = {
    # accounts (password reset answers 404 without e-mail, the test settings' case)
    "accounts/login/": get(EVERYONE),
    "accounts/logout/": get(rule(*[NOT_ALLOWED] * 6)),
    "accounts/password_reset/": get(NOBODY),
    "accounts/password_reset/done/": get(NOBODY),
    "accounts/reset/<uidb64>/<token>/": get(NOBODY),
    "accounts/reset/done/": get(NOBODY),
    # an organizer's or admin's own API tokens (tests/annotation/test_api_tokens.py)
    "accounts/api-tokens/": get(ORGANIZERS),
    "accounts/api-tokens/new/": post(ORGANIZERS),
    "accounts/api-tokens/revoke/": post(ORGANIZERS),
    "accounts/api-tokens/revoke-all/": post(ORGANIZERS),
    "favicon.ico": get(EVERYONE),
    # the API and its description
    "api/schema/": get(EVERYONE),
    "api/docs/": get(EVERYONE),
    "api/": api(get(API_LOGGED_IN)),
    "api/^campaigns/$": api(get(API_ORGANIZERS), post(rule(NO, NO, NO, OK, OK, OK))),
    "api/^campaigns/(?P<pk>[0-9]+)/$": api(get(API_ITS_ORGANIZERS)),
    "api/^campaigns/(?P<pk>[0-9]+)/appraise-xml/$": api(get(API_ITS_ORGANIZERS), post(API_ITS_ORGANIZERS)),
    "api/^campaigns/(?P<pk>[0-9]+)/screens/$": api(get(API_ITS_ORGANIZERS), post(API_ITS_ORGANIZERS)),
    "api/^campaigns/(?P<pk>[0-9]+)/screen-jobs/(?P<screen_job_id>[0-9]+)/resume/$": api(post(API_ITS_ORGANIZERS)),
    "api/^campaigns/(?P<pk>[0-9]+)/references/$": api(get(API_ITS_ORGANIZERS), post(API_ITS_ORGANIZERS)),
    "api/^campaigns/(?P<pk>[0-9]+)/judgments/(?P<extension>csv|json)/$": api(get(API_ITS_ORGANIZERS)),
    "api/^campaigns/(?P<pk>[0-9]+)/scores/$": api(post(API_ITS_ORGANIZERS)),
    "api/^campaigns/(?P<pk>[0-9]+)/raters/$": api(get(API_ITS_ORGANIZERS), post(API_ITS_ORGANIZERS)),
    "api/^campaigns/(?P<pk>[0-9]+)/close/$": api(post(API_ITS_ORGANIZERS)),
    "api/^campaigns/(?P<pk>[0-9]+)/reopen/$": api(post(API_ITS_ORGANIZERS)),
    "api/^jobs/(?P<job_id>[0-9]+)/$": api(get(API_ITS_ORGANIZERS)),
    "api/campaigns/<int:pk>/analyses/": api(get(API_ITS_ORGANIZERS), post(API_ITS_ORGANIZERS)),
    "api/campaigns/<int:pk>/analyses/<int:run_id>/": api(get(API_ITS_ORGANIZERS)),
    "api/^campaigns/(?P<pk>[0-9]+)/analyses/(?P<run_id>[0-9]+)/report\\.(?P<extension>json|html|tex|csv)$":
        api(get(API_ITS_ORGANIZERS)),
    # organizers' pages
    "campaigns/": get(ORGANIZERS),
    "campaigns/new/": get(ORGANIZERS),
    "campaigns/<int:pk>/": get(ITS_ORGANIZERS),
    "jobs/<int:job_id>/": get(ITS_ORGANIZERS),
    "campaigns/<int:pk>/close/": get(ITS_ORGANIZERS) + post(ITS_ORGANIZERS),
    "campaigns/<int:pk>/reopen/": get(ITS_ORGANIZERS) + post(ITS_ORGANIZERS),
    "campaigns/<int:pk>/screens/": get(ITS_ORGANIZERS) + post(ITS_ORGANIZERS),
    "campaigns/<int:pk>/screen-jobs/<int:screen_job_id>/resume/": post(ITS_ORGANIZERS),
    "campaigns/<int:pk>/screens/<int:number>/": get(ITS_ORGANIZERS),
    "campaigns/<int:pk>/screens/<int:number>/exclusion/": post(ITS_ORGANIZERS),
    "campaigns/<int:pk>/dashboard.json": get(ITS_ORGANIZERS),
    "campaigns/<int:pk>/references/import/": post(ITS_ORGANIZERS),
    "campaigns/<int:pk>/appraise/import/": post(ITS_ORGANIZERS),
    "campaigns/<int:pk>/appraise/judgments.xml": get(ITS_ORGANIZERS),
    "campaigns/<int:pk>/scores/import/": post(ITS_ORGANIZERS),
    "campaigns/<int:pk>/^judgments\\.(?P<extension>csv|json)$": get(ITS_ORGANIZERS),
    "campaigns/<int:pk>/crowd-workers.csv": get(ITS_ORGANIZERS),
    "campaigns/<int:pk>/invites/": post(ITS_ORGANIZERS),
    "campaigns/<int:pk>/invites/<int:invite_id>/revoke/": post(ITS_ORGANIZERS),
    "campaigns/<int:pk>/guidelines/": get(ITS_ORGANIZERS),
    "campaigns/<int:pk>/training/new/": get(ITS_ORGANIZERS),
    "campaigns/<int:pk>/training/<int:screen_id>/delete/": post(ITS_ORGANIZERS),
    "campaigns/<int:pk>/attention/": post(ITS_ORGANIZERS),
    "campaigns/<int:pk>/raters/": get(ITS_ORGANIZERS),
    "campaigns/<int:pk>/raters/decision/": post(ITS_ORGANIZERS),
    "campaigns/<int:pk>/analyses/": get(ITS_ORGANIZERS),
    "campaigns/<int:pk>/analyses/status.json": get(ITS_ORGANIZERS),
    "campaigns/<int:pk>/leaderboard.json": get(ITS_ORGANIZERS),
    "campaigns/<int:pk>/history.json": get(ITS_ORGANIZERS),
    "campaigns/<int:pk>/^pairs/(?P<kind>unexpanded|expanded)\\.tsv$": get(ITS_ORGANIZERS),
    "campaigns/<int:pk>/^analyses/(?P<run_id>[0-9]+)\\.(?P<extension>json|html|tex|csv)$": get(ITS_ORGANIZERS),
    # judges' pages (an invite link is a bearer secret: it shows its confirmation to anyone who has it)
    "": get(LOGGED_IN),
    "judge/": get(LOGGED_IN),
    "invite/<str:secret>/": get(EVERYONE),
    # a crowd study link opens only for a campaign in crowd mode ("mine" is not: 404; tests/annotation/test_crowd.py)
    "crowd/<slug:key>/": get(NOBODY),
    "judge/password/": get(LOGGED_IN),
    "judge/campaigns/<int:campaign_id>/": get(ITS_JUDGE),
    "judge/campaigns/<int:campaign_id>/done/": get(ITS_JUDGE) + post(ITS_JUDGE),
    "judge/campaigns/<int:campaign_id>/guidelines/": get(ITS_JUDGE),
    "judge/campaigns/<int:campaign_id>/training/": get(ITS_JUDGE),
    "judge/campaigns/<int:campaign_id>/training/<int:position>/feedback/": get(ITS_JUDGE),
    "judge/campaigns/<int:campaign_id>/undo/": post(ITS_JUDGE),
    "judge/screens/<uuid:token>/": get(ITS_JUDGE),
    "judge/screens/<uuid:token>/flag/": post(ITS_JUDGE),
    # the screen's lease request (screen.js): a 401 tells the page that the login session ended
    "judge/screens/<uuid:token>/lease/": post(rule(LOGGED_OUT, OK, NO, NO, NO, NO)),
}
ADMIN_PREFIX = "admin/"
#: Admin URLs that behave otherwise: its login page is open; logging out takes POST only, and sends the others to the
#: admin's index (and so to its login page).
ADMIN_EXCEPTIONS = {"admin/login/": get(EVERYONE), "admin/logout/": get(rule(OK, OK, OK, OK, OK, NOT_ALLOWED))}


@dataclass(frozen=True)
class Route:
    pattern: str
    pieces: tuple[URLPattern | URLResolver, ...]


def routes() -> list[Route]:
    """Every URL pattern of the project, nested includes flattened."""
    found: list[Route] = []

    def walk(patterns, pieces):
        for entry in patterns:
            chain = (*pieces, entry)
            if isinstance(entry, URLResolver):
                walk(entry.url_patterns, chain)
            else:
                found.append(Route("".join(str(piece.pattern) for piece in chain), chain))

    walk(get_resolver().url_patterns, ())
    return found


def checks_for(route: Route) -> list[Check] | None:
    if route.pattern in ADMIN_EXCEPTIONS:
        return ADMIN_EXCEPTIONS[route.pattern]
    if route.pattern.startswith(ADMIN_PREFIX):
        return get(ADMIN_SITE)
    return EXPECTED.get(route.pattern)


def test_every_url_pattern_has_a_rule():
    patterns = {route.pattern for route in routes()}
    missing = sorted(p for p in patterns if checks_for(Route(p, ())) is None)
    assert missing == [], f"URL patterns without a rule in EXPECTED: {missing}"
    assert sorted(set(EXPECTED) - patterns) == [], "rules for URL patterns that no longer exist"


@pytest.fixture
def world(django_user_model):
    """One campaign with its judge, organizer, a served screen, a training answer, an invite and a finished analysis;
    another campaign with its own judge and organizer; an admin."""
    organizers = Group.objects.create(name=ORGANIZERS_GROUP)
    users = {role: User.objects.create_user(role, password="pw") for role in ROLES[1:]}
    admin = users["admin"]
    admin.is_staff = admin.is_superuser = True
    admin.save()
    for role in ("organizer", "other_organizer"):
        users[role].groups.add(organizers)
    campaign = small_campaign("mine", owner=users["organizer"])
    campaign.organizers.add(users["organizer"])
    campaign.judges.add(users["judge"])
    other = Campaign.objects.create(name="theirs", owner=users["other_organizer"])
    other.organizers.add(users["other_organizer"])
    other.judges.add(users["other_judge"])
    screen = add_screen(campaign, 0, judges=[users["judge"]])
    served = next_assignment(campaign, users["judge"])
    segment = Segment.objects.get(campaign=campaign, line=1)
    candidates = list(segment.candidates.order_by("id"))[:2]
    training = add_training_screen(campaign, segment, candidates, [1, 2])
    answer_training(training, users["judge"], [1, 2])
    invite, secret = create_invite(campaign, "invitee", users["organizer"])
    run = AnalysisRun.objects.create(campaign=campaign, seed=1, status=AnalysisRun.Status.DONE,
                                     result={"campaign": "mine"})
    job = BackgroundJob.objects.create(kind=BackgroundJob.Kind.APPRAISE_XML, campaign=campaign,
                                   requested_by=users["organizer"], status=BackgroundJob.Status.DONE)
    screen_job = ScreenJob.objects.create(campaign=campaign, requested=3, first_number=1,
                                          status=ScreenJob.Status.FAILED)
    values = {
        "pk": campaign.pk, "campaign_id": campaign.pk, "number": screen.number, "invite_id": invite.pk,
        "screen_id": training.pk, "position": training.position, "secret": secret, "run_id": run.pk,
        "token": served.token, "uidb64": "MQ", "key": campaign.crowd_key,
        "object_id": admin.pk, "id": admin.pk, "content_type_id": 1, "job_id": job.pk,
        "screen_job_id": screen_job.pk,
    }
    clients = {"anonymous": Client()}
    for role, user in users.items():
        clients[role] = Client()
        clients[role].force_login(user)
    return values, clients


def concrete(piece: URLPattern | URLResolver, values: dict) -> str:
    """One piece of a URL pattern with its parameters filled in from ``values`` (a regex group that has none: the
    first choice of its alternation, or ``1``)."""
    pattern = piece.pattern
    converters = getattr(pattern, "converters", {})
    text = str(pattern)
    if hasattr(pattern, "_route"):
        return re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(converters[m.group(1)].to_url(values[m.group(1)])
                      if m.group(1) in converters else values[m.group(1)]), text)

    def group(match: re.Match) -> str:
        name, body = match.group(1), match.group(2)
        if name in values:
            return str(values[name])
        return body.split("|")[0] if "|" in body else "1"

    text = re.sub(r"\(\?P<(\w+)>((?:[^()]|\([^()]*\))*)\)", group, text)
    return text.lstrip("^").rstrip("$").replace("/?", "").replace("\\.", ".")


def outcome(response, admin_site: bool) -> str:
    if response.status_code == 405:
        return NOT_ALLOWED
    if response.status_code == 401:
        return LOGGED_OUT
    if response.status_code in (403, 404):
        return NO
    login = "/admin/login/" if admin_site else "/accounts/login/"
    if 300 <= response.status_code < 400 and response["Location"].startswith(login):
        return LOGIN
    if response.status_code < 400:
        return OK
    return f"status {response.status_code}"


@pytest.mark.slow
def test_every_role_gets_what_the_table_says_on_every_url(world):
    values, clients = world
    wrong = []
    for route in routes():
        url = "/" + "".join(concrete(piece, values) for piece in route.pieces)
        for check in checks_for(route) or []:  # a pattern without a rule fails the test above
            for role, expected in check.expected.items():
                if check.method == "POST" and expected == OK:
                    continue
                response = getattr(clients[role], check.method.lower())(url)
                got = outcome(response, route.pattern.startswith(ADMIN_PREFIX))
                if got != expected and not (expected == ENTERS and got in (OK, NO)):
                    wrong.append(f"{check.method} {url} ({route.pattern}) as {role}: {got}, expected {expected}")
    assert not wrong, "\n".join(wrong)


def test_options_of_the_api_describes_no_body_the_endpoint_does_not_take(world):
    """OPTIONS of the raters and screens actions listed the Campaign model's fields as what their POST takes (DRF's
    metadata reads the view's serializer, the campaign's), and that of the campaigns list the read-only campaign for
    a multipart upload. Each endpoint's OPTIONS now says what it is (its name, description and media types) and
    leaves its requests to the API's schema, which describes them."""
    values, clients = world
    for route in routes():
        if not route.pattern.startswith("api/^"):
            continue
        url = "/" + "".join(concrete(piece, values) for piece in route.pieces)
        response = clients["organizer"].options(url)
        assert response.status_code == 200, (url, response.content[:300])
        body = response.json()
        assert "actions" not in body and body["schema"] == "/api/schema/", (url, body)
        assert body["parses"] and body["renders"] == ["application/json", "text/html"], (url, body)


@pytest.mark.slow
def test_no_404_names_a_model(world):
    """The API's 404 for a campaign, import or screen job that is not there, or not the user's, said "No Campaign
    matches the given query." (DRF keeps the message of Django's ``get_object_or_404``), naming the product's
    models, in JSON and in the browsable API's page. Every URL with an id that names nothing (each id in turn) now
    answers, to every role and method of the table, the API's ``{"detail": "Not found."}`` (in the browsable API's
    page too) or a page that names no model (the site's 404 page; a study link's, saying no study has it)."""
    values, clients = world
    wrong = []
    for route in routes():
        if route.pattern.startswith(ADMIN_PREFIX):
            continue
        for name in (name for name, value in values.items() if isinstance(value, int) and name in route.pattern):
            url = "/" + "".join(concrete(piece, values | {name: 999_999}) for piece in route.pieces)
            wrong += wrong_404s(url, checks_for(route) or [], clients)
    assert not wrong, "\n".join(wrong)


def wrong_404s(url: str, checks: list[Check], clients: dict[str, Client]) -> list[str]:
    """The 404s of ``url`` that name a model (in JSON: that say anything but "Not found."), asked by every role with
    the methods of ``checks``, in JSON and in HTML."""
    wrong = []
    for check in checks:
        for role, client in clients.items():
            for accept in ("application/json", "text/html"):
                response = getattr(client, check.method.lower())(url, HTTP_ACCEPT=accept)
                if response.status_code != 404:
                    continue
                content = response.content.decode()
                if response["Content-Type"] == "application/json":
                    fine = response.json() == {"detail": "Not found."}
                else:
                    fine = "matches the given query" not in content
                if not fine:
                    wrong.append(f"{check.method} {url} as {role} ({accept}): {content[:200]}")
    return wrong
