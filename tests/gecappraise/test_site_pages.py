"""Each role's start page and header links, the 403/404 pages in the site layout and JSON errors for the API, the
API root's links and the favicon (the browser side is in tests/browser/test_way_around.py)."""
from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client
from django.urls import reverse

from annotation.models import CrowdWorker
from annotation.permissions import ORGANIZERS_GROUP, is_crowd_worker, organizes, roles
from tests.annotation.factories import judge, small_campaign

pytestmark = pytest.mark.django_db


@pytest.fixture
def people():
    """A superuser, an organizer (of a campaign), a judge of it, and a user with no role."""
    organizer = User.objects.create_user("olga", password="pw")
    organizer.groups.add(Group.objects.create(name=ORGANIZERS_GROUP))
    campaign = small_campaign("shared", owner=organizer)
    campaign.organizers.add(organizer)
    return {
        "admin": User.objects.create_superuser("root", password="pw"),
        "organizer": organizer,
        "judge": judge("jude", campaign),
        "nobody": User.objects.create_user("nemo", password="pw"),
    }


def client_of(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("role, start", [("admin", "/campaigns/"), ("organizer", "/campaigns/")])
def test_organizers_and_admins_start_on_their_campaigns(people, role, start):
    client = client_of(people[role])
    response = client.get("/")
    assert response.status_code == 302 and response["Location"] == start
    after_login = Client().post(reverse("login"), {"username": people[role].username, "password": "pw"}, follow=True)
    assert after_login.redirect_chain[-1][0] == start


@pytest.mark.parametrize("role", ["judge", "nobody"])
def test_judges_start_on_their_judging_home(people, role):
    page = client_of(people[role]).get("/")
    assert page.status_code == 200 and b"<h1>Your campaigns</h1>" in page.content


def header(client: Client, url: str = "/judge/") -> str:
    html = client.get(url).content.decode()
    return html[html.index('<header'):html.index('</header>')]


def test_the_header_links_each_role_to_its_pages(people):
    organizer, admin, judge_ = (header(client_of(people[r])) for r in ("organizer", "admin", "judge"))
    for html in (organizer, admin):
        assert 'href="/campaigns/">Campaigns</a>' in html and 'href="/api/docs/">API docs</a>' in html
        assert 'href="/accounts/api-tokens/">API tokens</a>' in html
        assert ">Judging</a>" not in html
    assert 'href="/admin/">Admin</a>' in admin and ">Admin</a>" not in organizer
    assert 'href="/judge/">Judging</a>' in judge_ and ">Campaigns</a>" not in judge_ and "API docs" not in judge_
    assert "API tokens" not in judge_
    assert all('href="/judge/password/">Password</a>' in html for html in (organizer, admin, judge_))
    people["organizer"].judged_campaigns.add(*people["organizer"].organized_campaigns.all())
    assert 'href="/judge/">Judging</a>' in header(client_of(people["organizer"]))


def test_roles_agree_with_the_role_checks_in_one_query(people, django_assert_num_queries):
    owner_only = User.objects.create_user("owen", password="pw")
    small_campaign("owned", owner=owner_only)
    crowd = small_campaign("crowd", crowd=True)
    worker = judge("crowd-1-prolific-P1", crowd)
    CrowdWorker.objects.create(campaign=crowd, platform="prolific", worker_id="P1", judge=worker)
    for user in (*people.values(), owner_only, worker):
        with django_assert_num_queries(1):
            found = roles(user)
        assert found.organizes == organizes(user), user.username
        assert found.judges == user.judged_campaigns.exists(), user.username
        assert found.crowd_worker == is_crowd_worker(user), user.username
        assert found.worker_id == ("P1" if user == worker else None), user.username


def test_a_missing_page_is_a_styled_404_with_ways_on(people):
    page = client_of(people["judge"]).get("/campaigns/999999/")
    html = page.content.decode()
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")
    assert 'class="site-header"' in html and "There is nothing here" in html
    assert "/campaigns/999999/" in html and 'href="/judge/">The campaigns you judge</a>' in html
    anonymous = Client().get("/no/such/page/").content.decode()
    assert 'href="/accounts/login/?next=/no/such/page/"' in anonymous


def test_a_refusal_is_a_styled_403_saying_why(people):
    page = client_of(people["judge"]).get(reverse("campaign-list"))
    html = page.content.decode()
    assert page.status_code == 403 and 'class="site-header"' in html
    assert "Only organizers manage campaigns." in html and "logged in as <strong>jude</strong>" in html


def test_a_form_refused_by_the_csrf_check_is_a_styled_403_saying_why_and_what_to_do(people):
    """A page opened before the user logged out and in again in another tab sends a token that no longer matches
    (before: Django's bare "CSRF verification failed" page, with no way back)."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(people["organizer"])
    page = client.post(reverse("logout"))
    html = page.content.decode()
    assert page.status_code == 403 and 'class="site-header"' in html
    assert "This form has expired" in html and "before your last log-in or log-out" in html
    assert "Nothing was saved" in html and "Log in</a>, then try again" not in html


def test_api_errors_are_json(people):
    client = client_of(people["judge"])
    missing = client.get("/api/no-such-endpoint/")
    assert missing.status_code == 404 and missing.json() == {"detail": "Not found."}
    refused = client.get("/api/campaigns/")
    assert refused.status_code == 403 and "detail" in refused.json()
    json_page = client_of(people["organizer"]).get("/campaigns/999999/dashboard.json")
    assert json_page.status_code == 404 and json_page.json() == {"detail": "Not found."}


def test_the_api_root_links_to_the_api_not_the_pages(people):
    root = client_of(people["organizer"]).get("/api/", HTTP_ACCEPT="application/json").json()
    assert root == {"campaigns": "http://testserver/api/campaigns/"}


def test_the_favicon_is_served(people):
    page = Client().get("/accounts/login/").content.decode()
    assert '<link rel="icon" href="/static/favicon.svg"' in page
    assert Client().get("/favicon.ico")["Location"] == "/static/favicon.svg"


@pytest.mark.parametrize("path", ["/accounts/login/", "/api/docs/", "/no-such-page/"])
def test_every_answer_carries_the_content_security_policy(client, path):
    """No inline script may run: scripts come from this site only (the API docs' too, split out of the page)."""
    policy = client.get(path)["Content-Security-Policy"]
    assert "script-src 'self'" in policy and "'unsafe-inline'" not in policy.split("script-src")[1].split(";")[0]
    assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy
