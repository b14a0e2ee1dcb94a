"""The judge's level on an ordinal criterion is part of its verdict in the API (its `verdict`
is null there: a level is no true or false)."""

import pytest
from django.urls import reverse

from judging.models import JudgeRun, JudgeVerdict
from tests.factories import published_task, response

pytestmark = pytest.mark.django_db


def test_a_verdict_on_an_ordinal_criterion_carries_the_judges_level(viewer_api):
    task = published_task(scale=(0, 4), criteria=2)
    answer = response(task)
    run = JudgeRun.objects.create(judge_model="judge-l")
    ordinal, binary = task.criteria.order_by("order")
    JudgeVerdict.objects.create(
        run=run, response=answer, criterion_version=ordinal.versions.get(), level=3
    )
    JudgeVerdict.objects.create(
        run=run, response=answer, criterion_version=binary.versions.get(), verdict=True
    )
    url = reverse("api:judgeverdict-list")
    found = viewer_api.get(url, {"run": run.pk}).json()["results"]
    assert sorted((v["criterion"], v["verdict"], v["level"]) for v in found) == [
        (ordinal.code, None, 3),
        (binary.code, True, None),
    ]
    one = viewer_api.get(reverse("api:judgeverdict-detail", args=[found[0]["id"]])).json()
    assert "level" in one
