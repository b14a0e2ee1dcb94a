"""The comparison page: two runs of a study side by side, and each pair tested per criterion."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from agreement.services import run_comparison
from grading.models import Study
from judging.models import JudgeRun
from tests.workbench.builders import graded_demo_study, judge_run

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def world(module_db: None) -> dict[str, int]:
    study = graded_demo_study()
    v1 = judge_run(study, "v1", fails_universal=True)
    v2 = judge_run(study, "v2", fails_universal=False)
    return {"study": study.pk, "v1": v1.pk, "v2": v2.pk}


@pytest.fixture
def study(world) -> Study:
    return Study.objects.get(pk=world["study"])


@pytest.fixture
def runs(world) -> list[JudgeRun]:
    return [JudgeRun.objects.get(pk=world["v1"]), JudgeRun.objects.get(pk=world["v2"])]


def test_the_run_that_follows_the_majority_agrees_more_on_the_universal_criteria(study, runs):
    comparison = run_comparison(study, runs)
    pair = comparison.pairs[0]
    universal = {c.code for c in comparison.criteria if c.layer == "universal"}
    for test in pair.criteria:
        assert test.test.first_only == 0  # v1 is never right where v2 is wrong
        if test.label not in universal:
            assert (test.test.second_only, test.direction) == (0, 0)
        else:  # every universal unit is discordant; six all one way reach p = 2 / 64 < 0.05
            assert test.direction == (1 if test.test.second_only >= 6 else 0)
    assert pair.more >= 1 and pair.less == 0
    assert pair.sentence.startswith(
        f"judge-m / v2 agrees with the experts more than judge-m / v1 on {pair.more} criteri"
    )


def test_the_page_shows_the_sentence_and_every_figure(
    study, runs, client_as, django_assert_max_num_queries
):
    client = client_as(Role.MAINTAINER)
    url = reverse("workbench:compare", args=[study.pk])
    run_comparison(study, runs)  # computed once; the page reads the cache
    with django_assert_max_num_queries(16):
        response = client.get(url, {"run": [r.pk for r in runs]})
    body = response.content.decode()
    assert response.status_code == 200
    assert "agrees with the experts more than judge-m / v1" in body
    assert "Alpha with the judge" in body and "AC1 with the judge" in body
    assert "not recorded" in body  # tokens and time of imported runs
    assert "NaN" not in body


def test_the_page_computes_a_comparison_it_has_not_seen_in_bounded_queries(
    study, runs, client_as, django_assert_max_num_queries
):
    client = client_as(Role.MAINTAINER)
    url = reverse("workbench:compare", args=[study.pk])
    # session, user, two permissions, study, runs, settings twice, two verdict states, gold
    # state, two study states, cache read and write (3), ratings (4), items and verdicts,
    # gold, families, resolutions
    with django_assert_max_num_queries(28):
        response = client.get(url, {"run": [r.pk for r in runs]})
    assert response.status_code == 200


def test_one_run_is_not_a_comparison(study, runs, client_as):
    client = client_as(Role.MAINTAINER)
    url = reverse("workbench:compare", args=[study.pk])
    response = client.get(url, {"run": [runs[0].pk]})
    assert response.status_code == 422
    assert "Choose 2 to 4 runs." in response.content.decode()


def test_the_htmx_answer_is_the_comparison_fragment(study, runs, client_as):
    client = client_as(Role.MAINTAINER)
    url = reverse("workbench:compare", args=[study.pk])
    response = client.get(url, {"run": [r.pk for r in runs]}, headers={"HX-Request": "true"})
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="comparison">')
    assert "<html" not in body


def test_the_judge_page_links_to_the_comparison_for_maintainers_only(study, runs, client_as):
    judge_url = reverse("agreement:judge", args=[study.pk, runs[0].pk])
    compare_url = reverse("workbench:compare", args=[study.pk])
    assert compare_url in client_as(Role.MAINTAINER).get(judge_url).content.decode()
    assert compare_url not in client_as(Role.VIEWER).get(judge_url).content.decode()
