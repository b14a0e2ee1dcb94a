"""Slow links: responses are gzip-compressed for clients that accept it, streamed downloads
included (workbooks, already zip archives, are not compressed again); the grading page needs
one round trip on a first visit (its stylesheets and scripts inline) and links the shared ones
once the browser has them."""

import gzip

import pytest
from django.urls import reverse

from accounts.roles import Role
from grading import services
from grading.templatetags.inline_assets import assets_version
from tests import factories

pytestmark = pytest.mark.django_db

GZIP = {"HTTP_ACCEPT_ENCODING": "gzip, deflate, br"}


def test_pages_are_compressed_and_vary_on_accept_encoding(client_as):
    client = client_as(Role.MAINTAINER)
    reply = client.get(reverse("grading:studies"), **GZIP)
    assert reply["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in reply["Vary"]
    assert b"</html>" in gzip.decompress(reply.content)
    plain = client.get(reverse("grading:studies"))
    assert not plain.has_header("Content-Encoding")
    assert b"</html>" in plain.content


def test_a_streamed_export_is_compressed_whole_and_a_workbook_is_left_alone(client_as, make_user):
    study = factories.graded_study([make_user(Role.ANNOTATOR)], ["pass"], responses=1)
    client = client_as(Role.ADMIN)
    csv = client.get(reverse("interchange:export_grades_csv", args=[study.pk]), **GZIP)
    assert csv.streaming and csv["Content-Encoding"] == "gzip"
    assert not csv.has_header("Content-Length")
    plain = client.get(reverse("interchange:export_grades_csv", args=[study.pk]))
    text = b"".join(plain.streaming_content)
    assert text.count(b"\n") == 4  # a header and one line per criterion
    assert gzip.decompress(b"".join(csv.streaming_content)) == text
    xlsx = client.get(reverse("interchange:export_grades_xlsx", args=[study.pk]), **GZIP)
    assert xlsx["Content-Type"].startswith("application/vnd.openxmlformats")
    assert not xlsx.has_header("Content-Encoding")
    assert b"".join(xlsx.streaming_content)[:2] == b"PK"


def test_the_grading_page_inlines_its_assets_until_the_shared_ones_are_cached(client, make_user):
    grader = make_user(Role.ANNOTATOR)
    study = factories.study([grader], responses=1, overlap=1)
    services.assign_study(study)
    url = reverse("grading:assignment", args=[study.items.get().assignments.get().pk])
    client.force_login(grader)
    first = client.get(url).content.decode()
    assert "htmx.min.js" not in first and "app.css" not in first  # nothing else to fetch
    assert first.count('<script nonce="') == 3 and first.count('<style nonce="') == 2
    assert "grading.js" not in first and 'id="grading"' in first
    # app.js, run from its URL on any page, marks the shared files cached with this cookie.
    page = client.get(reverse("grading:index")).content.decode()
    assert f'data-assets="{assets_version()}"' in page
    client.cookies["assets"] = assets_version()
    later = client.get(url).content.decode()
    assert "htmx-2.min.js" in later and "l2annot/app.css" in later
    assert later.count('<script nonce="') == 1 and later.count('<style nonce="') == 1
    client.cookies["assets"] = "an-older-version"
    assert "htmx-2.min.js" not in client.get(url).content.decode()
