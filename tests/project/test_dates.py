"""Dates on the pages follow the reader's language: the templates name one of Django's
localised formats (docs/development.md, "Translations"), so a Spanish reader sees day/month/year
and an English one the month's name."""

import re
from datetime import UTC, datetime

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from accounts.roles import Role
from tests.factories import make_job
from tests.project.test_template_text import project_templates

pytestmark = pytest.mark.http

# `c` is ISO 8601, for a <time datetime="..."> a machine reads.
FORMAT_NAMES = {"DATE_FORMAT", "DATETIME_FORMAT", "SHORT_DATE_FORMAT", "SHORT_DATETIME_FORMAT"}
FORMAT_NAMES |= {"TIME_FORMAT", "MONTH_DAY_FORMAT", "YEAR_MONTH_FORMAT", "c"}
DATE_FILTER = re.compile(r"""\|date(?::(["'])(.*?)\1)?""")


def hard_coded_formats(source: str) -> list[str]:
    return [
        m.group(2) or "" for m in DATE_FILTER.finditer(source) if m.group(2) not in FORMAT_NAMES
    ]


def test_the_check_finds_a_format_written_out():
    source = '{{ a|date:"j M Y" }} {{ b|date:"SHORT_DATE_FORMAT" }} {{ c|date }} {{ d|date:\'c\' }}'
    assert hard_coded_formats(source) == ["j M Y", ""]


@pytest.mark.parametrize(
    "template",
    project_templates(),
    ids=lambda path: path.relative_to(settings.BASE_DIR).as_posix(),
)
def test_templates_show_dates_in_a_localised_format(template):
    assert hard_coded_formats(template.read_text(encoding="utf-8")) == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("language", "shown"), [("es", "04/12/2026 20:50"), ("en", "4 Dec 2026, 20:50")]
)
def test_an_import_job_shows_its_date_in_the_readers_language(
    make_user, starter_framework, language, shown
):
    user = make_user(Role.MAINTAINER)
    user.language = language
    user.save()
    job = make_job(starter_framework)
    type(job).objects.filter(pk=job.pk).update(created_at=datetime(2026, 12, 4, 20, 50, tzinfo=UTC))
    client = Client()
    client.force_login(user)
    page = client.get(reverse("interchange:job", args=[job.pk])).content.decode()
    assert shown in page
