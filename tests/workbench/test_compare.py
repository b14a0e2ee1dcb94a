"""The comparison page: two runs of a study side by side, and each pair tested per criterion."""

import json
from io import BytesIO

import pytest
from django.urls import reverse
from openpyxl import load_workbook

from accounts.roles import Role
from agreement.services import run_comparison
from agreement.stats.grouped import AC_METHOD, BCA
from grading.models import Study
from judging.models import JudgeRun, JudgeVerdict
from tests.factories import graded_demo_study, judge_run

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
        else:  # every universal unit is discordant; the Holm-corrected p decides
            assert test.p_adjusted >= test.test.p_value
            assert test.direction == (1 if test.p_adjusted < 0.05 else 0)
    assert pair.overall.direction == 1 and pair.less == 0
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
    assert "Holm-corrected for the" in body
    assert "Alpha with the judge" in body and "AC1 with the judge" in body
    assert "not recorded" in body  # tokens and time of imported runs
    assert "NaN" not in body
    # Every run's leniency carries its n: its units and the responses they belong to.
    for run in run_comparison(study, runs).runs:
        lenient = run.overall.calibration.leniency
        assert f"(n = {lenient.n_items} units, {lenient.n_responses} responses)" in body


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


def test_the_judge_page_offers_its_calibration_with_intervals_and_n(study, runs, client_as):
    client = client_as(Role.MAINTAINER)
    run = runs[1]
    page = client.get(reverse("agreement:judge", args=[study.pk, run.pk])).content.decode()
    json_url = reverse("agreement:judge_calibration_json", args=[study.pk, run.pk])
    xlsx_url = reverse("agreement:judge_calibration_xlsx", args=[study.pk, run.pk])
    assert json_url in page and xlsx_url in page
    data = json.loads(client.get(json_url).content)
    overall, *criteria = data["rows"]
    assert overall["group"] == "overall" and len(criteria) >= 2
    for name in ("alpha with judge", "AC1 with judge", "accuracy vs majority", "leniency"):
        assert {name, f"{name} CI low", f"{name} CI high"} <= set(overall)
    assert overall["accuracy vs majority n"] == overall["units with a verdict"]
    assert overall["accuracy vs majority"] == 1.0  # v2 passes what the majority passes
    assert overall["accuracy vs majority CI low"] < 1.0
    assert overall["tokens"] is None and "self-preference gap" in overall
    workbook = load_workbook(BytesIO(client.get(xlsx_url).content))
    sheet = workbook["Judge calibration"]
    assert sheet["A1"].value == "judge" and sheet.max_row == len(data["rows"]) + 1


def test_the_agreement_report_carries_every_judges_calibration(study, runs, client_as):
    client = client_as(Role.MAINTAINER)
    report = json.loads(client.get(reverse("agreement:study_report_json", args=[study.pk])).content)
    judges = {row["judge"] for row in report["judge calibration"]}
    assert judges == {str(run) for run in runs}
    workbook = load_workbook(
        BytesIO(client.get(reverse("agreement:study_report_xlsx", args=[study.pk])).content)
    )
    assert "Judge calibration" in workbook.sheetnames


def test_an_unparseable_answer_is_counted_apart_not_as_a_pass_or_a_fail(study, runs):
    before = run_comparison(study, runs).runs[1].overall
    first = JudgeVerdict.objects.filter(run=runs[1]).order_by("pk").first()
    JudgeVerdict.objects.filter(pk=first.pk).update(verdict=None)
    after = run_comparison(study, runs).runs[1].overall
    assert (after.n_shared, after.unparseable.numerator) == (before.n_shared, 1)
    assert after.calibration.n_units == before.calibration.n_units - 1


def test_the_runs_intervals_are_the_study_reports_methods(study, runs):
    """BCa for alpha, withheld with its reason where no method holds its coverage (a few
    responses per criterion here); Wilson-type for AC1."""
    comparison = run_comparison(study, runs)
    for run in comparison.runs:
        assert run.overall.alpha.method == BCA
        assert run.overall.ac1.method == AC_METHOD
        for group in run.criteria:
            alpha = group.alpha
            assert alpha.low is None or alpha.unreliable_reason is None
            assert (
                alpha.estimate.undefined_reason or alpha.unreliable_reason or alpha.low is not None
            )
        assert any(group.alpha.unreliable_reason for group in run.criteria)
