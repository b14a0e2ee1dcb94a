"""The comparison page: two runs of a study side by side, and each pair tested per criterion."""

import json
from io import BytesIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from openpyxl import load_workbook
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import Role
from agreement.models import AnalysisSettings
from core.stats.grouped import AC_METHOD, BCA
from grading.models import Study
from judging.calibration import comparison_key, run_comparison
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
        f"judge-m · v2 agrees with the experts more than judge-m · v1 on {pair.more} criteri"
    )


def test_the_page_shows_the_sentence_and_every_figure(
    study, runs, client_as, django_assert_max_num_queries
):
    client = client_as(Role.MAINTAINER)
    url = reverse("judging:compare", args=[study.pk])
    run_comparison(study, runs)  # computed once; the page reads the cache
    with django_assert_max_num_queries(16):
        response = client.get(url, {"run": [r.pk for r in runs]})
    body = response.content.decode()
    assert response.status_code == 200
    assert "agrees with the experts more than judge-m · v1" in body
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
    url = reverse("judging:compare", args=[study.pk])
    # session, user, two permissions, study, runs, settings twice, two verdict states, gold
    # state, two study states, proficiency levels' state, cache read and write (3), ratings (4),
    # items and verdicts, gold, families, resolutions
    with django_assert_max_num_queries(29):
        response = client.get(url, {"run": [r.pk for r in runs]})
    assert response.status_code == 200


def test_one_run_is_not_a_comparison(study, runs, client_as):
    client = client_as(Role.MAINTAINER)
    url = reverse("judging:compare", args=[study.pk])
    response = client.get(url, {"run": [runs[0].pk]})
    assert response.status_code == 422
    assert "Choose 2 to 4 runs." in response.content.decode()


def test_the_htmx_answer_is_the_comparison_fragment(study, runs, client_as):
    client = client_as(Role.MAINTAINER)
    url = reverse("judging:compare", args=[study.pk])
    response = client.get(url, {"run": [r.pk for r in runs]}, headers={"HX-Request": "true"})
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="comparison">')
    assert "<html" not in body


def test_the_judge_page_links_to_the_comparison_for_maintainers_only(study, runs, client_as):
    judge_url = reverse("judging:calibration", args=[study.pk, runs[0].pk])
    compare_url = reverse("judging:compare", args=[study.pk])
    assert compare_url in client_as(Role.MAINTAINER).get(judge_url).content.decode()
    assert compare_url not in client_as(Role.VIEWER).get(judge_url).content.decode()


def test_the_judge_page_offers_its_calibration_with_intervals_and_n(study, runs, client_as):
    client = client_as(Role.MAINTAINER)
    run = runs[1]
    page = client.get(reverse("judging:calibration", args=[study.pk, run.pk])).content.decode()
    json_url = reverse("judging:calibration_json", args=[study.pk, run.pk])
    xlsx_url = reverse("judging:calibration_xlsx", args=[study.pk, run.pk])
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


# Each figure of a judge's calibration row (downloads, the study report, the API) and the
# column holding its n. A figure missing here, or whose n column is gone, fails the tests below.
FIGURE_N = {
    "unparseable rate": "units",
    "alpha with judge": "alpha with judge n",
    "AC1 with judge": "AC1 with judge n",
    **{
        f"{figure} vs {reference}": f"{figure} vs {reference} n"
        for figure in ("accuracy", "kappa", "sensitivity", "specificity")
        for reference in ("majority", "gold")
    },
    "leniency": "leniency n",
    "accuracy gap vs experts (leave one out)": "accuracy gap vs experts (leave one out) n",
    "alpha experts": "alpha experts n",
    "alt-test winning rate": "alt-test experts tested",
    "alt-test advantage probability": "alt-test experts tested",
    "self-preference gap": "self-preference n (own family)",
}
# Counts, labels and settings: not figures.
NOT_FIGURES = {
    "judge", "group", "units", "units with a verdict", "units left out vs majority (experts tied)",
    "units left out vs gold (no gold verdict)", "unparseable", "leniency responses",
    "accuracy gap experts held out", "alt-test experts", "alt-test experts tested",
    "alt-test fewest units of a tested expert",
    "alt-test verdict", "confidence", "resamples", "tokens", "seconds",
    "self-preference n (own family)", "self-preference n (other families)",
}  # fmt: skip


def assert_every_figure_has_its_n(rows: list[dict]) -> None:
    for row in rows:
        for key in row:
            if key in NOT_FIGURES or key.endswith((" n", " CI low", " CI high", " because")):
                continue
            assert key in FIGURE_N, f"{key!r}: a figure without a known n column"
            n = row[FIGURE_N[key]]  # present in every row; a number wherever the figure is
            assert row[key] is None or isinstance(n, int), (key, n)


def test_every_figure_of_the_calibration_downloads_carries_its_n(study, runs, client_as):
    client = client_as(Role.MAINTAINER)
    run = runs[1]
    url = reverse("judging:calibration_json", args=[study.pk, run.pk])
    rows = json.loads(client.get(url).content)["rows"]
    assert_every_figure_has_its_n(rows)
    overall = rows[0]
    found = run_comparison(study, runs).runs[1].overall.calibration
    assert overall["sensitivity vs majority n"] == found.vs_majority.sensitivity.denominator
    assert overall["specificity vs majority n"] == found.vs_majority.specificity.denominator
    assert overall["alt-test experts tested"] == found.alt_test.n_tested
    assert overall["accuracy gap vs experts (leave one out) n"] == found.alpha_experts.n_units
    xlsx = reverse("judging:calibration_xlsx", args=[study.pk, run.pk])
    sheet = load_workbook(BytesIO(client.get(xlsx).content))["Judge calibration"]
    header = [cell.value for cell in sheet[1]]
    assert header == list(overall)
    report = reverse("agreement:study_report_json", args=[study.pk])
    assert_every_figure_has_its_n(json.loads(client.get(report).content)["judge calibration"])


def test_the_report_command_writes_the_judge_calibrations_the_download_has(
    study, runs, client_as, tmp_path
):
    report = reverse("agreement:study_report_json", args=[study.pk])
    downloaded = json.loads(client_as(Role.MAINTAINER).get(report).content)["judge calibration"]
    output = tmp_path / "report.json"
    call_command("agreement_report", str(study.pk), "--output", str(output))
    written = json.loads(output.read_text(encoding="utf-8"))["judge calibration"]
    assert {row["judge"] for row in written} == {str(run) for run in runs}
    assert written == downloaded
    workbook = tmp_path / "report.xlsx"
    call_command("agreement_report", str(study.pk), "--format", "xlsx", "--output", str(workbook))
    sheet = load_workbook(workbook)["Judge calibration"]
    assert sheet.max_row == len(written) + 1


def test_every_figure_of_the_calibration_api_carries_its_n(study, runs, make_user):
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {ApiToken.issue(make_user(Role.VIEWER), 't')[1]}")
    answer = api.get(reverse("api:study-calibration", args=[study.pk, runs[1].pk])).json()
    assert_every_figure_has_its_n(answer["figures"])
    for group in (answer["overall"], *answer["by_layer"], *answer["by_criterion"]):
        assert group["n_with_majority"] + group["n_tied"] == group["n_units"]
        assert group["alt_test"]["n_tested"] <= group["alt_test"]["n_experts"]
        assert group["vs_majority"]["sensitivity"]["denominator"] >= 0


def test_every_alt_test_cell_of_the_comparison_carries_its_n(study, runs, client_as, monkeypatch):
    from judging.views import compare

    comparison = run_comparison(study, runs)
    monkeypatch.setattr(compare, "CRITERIA_PER_PAGE", len(comparison.criteria))
    body = client_as(Role.MAINTAINER).get(
        reverse("judging:compare", args=[study.pk]), {"run": [r.pk for r in runs]}
    )
    html = body.content.decode()
    cells = [group for run in comparison.runs for group in (run.overall, *run.criteria)]
    assert html.count("experts tested") == len(cells)
    for group in cells:
        alt = group.calibration.alt_test
        assert f"(n = {alt.n_tested} of {alt.n_experts} experts tested" in html


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


def test_the_page_names_each_run_once_by_its_name_and_says_first_who_may_replace_the_experts(
    study, runs, client_as
):
    for run, name in zip(runs, ["strict-sonnet v1", "strict-sonnet v2"], strict=True):
        JudgeRun.objects.filter(pk=run.pk).update(name=name, run_id="44AskUmAAZeMqACqZwfA7r")
    client = client_as(Role.MAINTAINER)
    body = client.get(
        reverse("judging:compare", args=[study.pk]), {"run": [r.pk for r in runs]}
    ).content.decode()
    assert "44AskUm" not in body and "judge-m ·" not in body
    assert "strict-sonnet v1</label>" in body  # the form's choices
    summary = body.index('id="comparison-summary"')
    assert summary < body.index('id="pairs-title"') < body.index('id="overall-title"')
    words = body[summary : body.index("</section>", summary)]
    assert "strict-sonnet v2 may replace the experts overall" in words
    assert "strict-sonnet v2 agrees with the experts more often than strict-sonnet v1" in words
    assert "experts, 134 units each" in words


def test_each_runs_cost_and_cost_a_unit_sit_beside_its_figures(study, runs, client_as):
    priced = runs[1]
    JudgeRun.objects.filter(pk=priced.pk).update(
        price_input_per_million=3, price_output_per_million=15, currency="EUR",
        input_tokens=1_000_000, output_tokens=100_000, calls_done=9, parameters={"epochs": 3},
    )  # fmt: skip
    client = client_as(Role.MAINTAINER)
    compared = client.get(
        reverse("judging:compare", args=[study.pk]), {"run": [r.pk for r in runs]}
    ).content.decode()
    assert "4.50 EUR" in compared and "1.5000 EUR a unit" in compared  # 3 units of 3 epochs
    assert "no price known" in compared  # the imported run
    calibration = client.get(reverse("judging:calibration", args=[study.pk, priced.pk]))
    assert "Cost of the run" in calibration.content.decode()
    assert "4.50 EUR" in calibration.content.decode()


def _criteria_section(body: str) -> str:
    return body.split('<section id="criteria"', 1)[1].split("</section>", 1)[0]


def test_a_study_with_more_criteria_than_a_page_holds_shows_them_in_pages(
    study, runs, client_as, monkeypatch, django_assert_max_num_queries
):
    from judging.views import compare

    monkeypatch.setattr(compare, "CRITERIA_PER_PAGE", 2)
    client = client_as(Role.MAINTAINER)
    url = reverse("judging:compare", args=[study.pk])
    comparison = run_comparison(study, runs)
    codes = [c.code for c in comparison.criteria]
    assert len(codes) > 2
    with django_assert_max_num_queries(16):
        response = client.get(url, {"run": [r.pk for r in runs]})
    section = _criteria_section(response.content.decode())
    # The runs' figures and each pair's tests on the first two criteria, none on the third.
    assert section.count(f"<code>{codes[0]}</code>") == 2
    assert section.count(f"<code>{codes[1]}</code>") == 2
    assert f"<code>{codes[2]}</code>" not in section
    assert f"Criteria 1 to 2 of {len(codes)}" in section
    runs_query = "&amp;".join(f"run={r.pk}" for r in runs)
    assert f'href="?{runs_query}&amp;page=2"' in section  # the next page keeps the runs

    with django_assert_max_num_queries(16):
        response = client.get(
            url, {"run": [r.pk for r in runs], "page": 2}, headers={"HX-Request": "true"}
        )
    body = response.content.decode()
    assert body.lstrip().startswith('<section id="criteria"')
    assert "<html" not in body and "comparison-summary" not in body
    assert f"<code>{codes[2]}</code>" in body and f"<code>{codes[0]}</code>" not in body
    assert f'href="?{runs_query}&amp;page=1"' in body


def test_the_levels_of_an_ordinal_criterion_are_on_its_criterions_page(monkeypatch):
    from core.analysis.ratings import CriterionInfo
    from judging.views import compare

    monkeypatch.setattr(compare, "CRITERIA_PER_PAGE", 1)
    infos = [CriterionInfo(key, f"C{key}", "", "", "", "") for key in (1, 2)]
    ordinal = CriterionInfo(2, "C2", "", "", "", "", scale=(1, 5))
    comparison = compare.RunComparison(
        criteria=tuple(infos), n_shared=0, runs=(), pairs=(), level=0.05, ordinal=(ordinal,)
    )
    assert compare.criteria_page(comparison, "1")["levels"] == []
    assert [row.criterion for row in compare.criteria_page(comparison, "2")["levels"]] == [ordinal]


def test_the_cache_key_does_not_grow_with_the_runs_compared(study, runs):
    """Each run's part of a key grows with its verdicts' counts: four runs of a large study
    made a key longer than the 250 characters memcached takes (CacheKeyWarning)."""
    settings = AnalysisSettings.for_study(study)
    one, four = comparison_key(study, runs[:1], settings), comparison_key(study, runs * 2, settings)
    assert len(four) == len(one) and four != one
    assert comparison_key(study, runs[::-1], settings) != comparison_key(study, runs, settings)
