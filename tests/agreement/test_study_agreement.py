"""Agreement of a real grading study: from grades in the database to the page and the report."""

import json
from dataclasses import replace

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone, translation
from openpyxl import load_workbook

from accounts.roles import Role
from agreement import cache as agreement_cache
from agreement.data import disagreements, load_study_ratings
from agreement.jobs import compute_study_report, prepare_study_download
from agreement.models import AnalysisSettings
from agreement.services import study_report
from agreement.views import reports
from audit.models import AuditEvent
from grading import services as grading
from grading.models import Grade, Study, Verdict
from interchange.exporters import rubric_tables
from interchange.rubric_validation import criterion_validation, validation_in
from jobs.models import Job
from judging.calibration import judge_report, study_leaderboard
from judging.models import JudgeRun, JudgeVerdict
from judging.views import calibration
from rubrics.models import CriterionVersion, Response
from tests.factories import demo_benchmark_and_graders, grade_study

pytestmark = pytest.mark.django_db

DISSENTER = 2  # the third annotator fails every universal criterion the others pass
PROMPTS = ["Is this task authentic?", "Are these criteria clear and fair?"]


@pytest.fixture(scope="module")
def graded_study(module_db: None) -> Study:
    """Three annotators grade three demo responses; built once, read by every test."""
    framework, graders = demo_benchmark_and_graders(3)
    responses = list(Response.objects.order_by("pk")[:3])
    study = grading.create_study(
        name="Pilot",
        framework=framework,
        responses=responses,
        annotators=graders,
        overlap=3,
        seed=1,
        require_rationale_on_fail=False,
        likert_prompts=PROMPTS,
    )
    grading.assign_study(study)
    grade_study(
        study,
        graders,
        lambda index, _, __, line: (
            Verdict.FAIL if index == DISSENTER and line.layer == "universal" else Verdict.PASS
        ),
        likert=lambda index, _, item: 2 if index == DISSENTER else 4 + item.order % 2,
        rationale="why",
    )
    return study


@pytest.fixture
def study(graded_study: Study) -> Study:
    return Study.objects.get(pk=graded_study.pk)


def test_ratings_hold_one_row_per_submitted_pass_or_fail_grade(study):
    ratings = load_study_ratings(study)
    applicable = sum(
        sum(1 for line in item.rubric_version.effective_rubric() if line.applicable)
        for item in study.items.all()
    )
    assert ratings.rating_value.size == 3 * applicable
    assert ratings.n_units == applicable
    assert ratings.raters == ("Annotator 1", "Annotator 2", "Annotator 3")


def test_loading_ratings_takes_a_fixed_number_of_queries(study, django_assert_max_num_queries):
    with django_assert_max_num_queries(4):
        load_study_ratings(study)


def test_the_dissenting_annotator_stands_out(study):
    report = study_report(study)
    by_name = {r.rater: r for r in report.raters}
    assert (
        by_name["Annotator 3"].agreement_with_others < by_name["Annotator 1"].agreement_with_others
    )
    matrix = report.rater_matrix
    assert matrix[0][1].percent == 1.0
    assert matrix[0][2].percent < 1.0


def test_universal_criteria_are_the_least_reliable(study):
    report = study_report(study)
    assert all(c.criterion.layer == "universal" for c in report.least_reliable(2))
    found = disagreements(study, [c.criterion.key for c in report.least_reliable(1)])
    assert found and {verdict for _, verdict, _ in found[0].grades} == {"pass", "fail"}


def test_the_report_is_cached_until_a_grade_changes(study, django_assert_max_num_queries):
    first = study_report(study)
    # settings, two state aggregates, the levels' state (the mapping groups), the cache read
    with django_assert_max_num_queries(5):
        assert study_report(study) == first
    AnalysisSettings.objects.create(study=study, validation_threshold=0.5)
    assert study_report(study).threshold == 0.5


def test_the_agreement_page_shows_the_plots_to_readers(study, client_as):
    response = client_as(Role.VIEWER).get(reverse("agreement:study", args=[study.pk]))
    body = response.content.decode()
    assert response.status_code == 200
    assert body.count("<svg") == 3
    assert "Krippendorff&#x27;s alpha per criterion" in body or "alpha per criterion" in body
    assert "Annotator 3" in body and "NaN" not in body
    assert "Brennan-Prediger" in body and "Scott's pi" in body and "Alpha ratio" in body
    # Three responses: alpha's interval is withheld, saying why, and AC1 keeps its interval.
    assert "interval unreliable: 3 responses (coverage checked from 20)" in body
    assert "AC1 [95% CI]" in body


def test_why_a_figure_is_missing_is_read_in_the_readers_language_from_a_cached_report(
    study, client_as
):
    """The report is computed once (by the worker, in English) and cached: each reader reads
    its reasons and methods in their own language."""
    with translation.override("en"):
        study_report(study)
    client = client_as(Role.VIEWER)
    url = reverse("agreement:study", args=[study.pk])
    spanish = client.get(url, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "intervalo poco fiable: 3 respuestas (cobertura comprobada a partir de 20)" in spanish
    assert "bootstrap BCa (respuestas)" in spanish
    assert "interval unreliable" not in spanish and "(responses)" not in spanish
    # Where graders split, each grader's verdict reads as on the grading page.
    labels = ("Cumple", "Incumple", "Presente", "Ausente")
    assert any(f"</strong>: {label}" in spanish for label in labels)
    assert "</strong>: pass" not in spanish and "</strong>: fail" not in spanish
    # Hidden graders' names, computed once into the cached report, read in the reader's language.
    assert '<th scope="row">Anotador/a 1</th>' in spanish and "Annotator 1" not in spanish
    english = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "interval unreliable: 3 responses (coverage checked from 20)" in english
    assert '<th scope="row">Annotator 1</th>' in english


def test_the_agreement_page_shows_the_criteria_a_page_at_a_time(study, client_as, monkeypatch):
    """A study of a thousand tasks has over a thousand criteria: the page holds a bounded
    number of them (the HTML stays small), the next ones come as an htmx fragment."""
    monkeypatch.setattr(reports, "CRITERIA_PER_PAGE", 2)
    client = client_as(Role.VIEWER)
    url = reverse("agreement:study", args=[study.pk])
    codes = [c.criterion.code for c in study_report(study).criteria]
    assert len(codes) > 2
    body = client.get(url).content.decode()
    shown = [code for code in codes if f'<th scope="row"><code>{code}</code>' in body]
    assert shown == codes[:2]
    assert f"Criteria 1 to 2 of {len(codes)}" in body and "page=2" in body
    fragment = client.get(url, {"page": 2}, HTTP_HX_REQUEST="true")
    html = fragment.content.decode()
    assert fragment.status_code == 200 and html.lstrip().startswith('<section id="criteria"')
    assert f'<th scope="row"><code>{codes[2]}</code>' in html and "<h1>" not in html


def test_annotators_may_not_see_agreement(study, client_as):
    response = client_as(Role.ANNOTATOR).get(reverse("agreement:study", args=[study.pk]))
    assert response.status_code == 403


def test_the_json_report_carries_every_figure_with_its_interval(study, client_as):
    url = reverse("agreement:study_report_json", args=[study.pk])
    data = json.loads(client_as(Role.MAINTAINER).get(url).content)
    assert data["study"] == "Pilot"
    first = data["criteria"][0]
    assert {"alpha", "alpha CI low", "alpha CI high", "AC1", "validated"} <= set(first)
    assert {"Brennan-Prediger", "Scott's pi"} <= set(first)
    assert len(data["pairwise agreement"]) == 3
    assert first["alpha CI low"] is None and first["alpha CI high"] is None
    assert first["alpha interval unreliable because"].startswith("interval unreliable: 3 ")
    assert first["AC1 CI low"] <= first["AC1"] <= first["AC1 CI high"]
    assert first["percent agreement CI low"] <= first["percent agreement"]
    for row in [data["overall"], *data["criteria"], *data["by layer"]]:
        assert row["units"] == row["pairable units"] + row["units left out (one rating)"]
    assert sum(row["units"] for row in data["criteria"]) == data["overall"]["units"]


def test_the_command_writes_an_xlsx_report(study, tmp_path):
    output = tmp_path / "report.xlsx"
    call_command("agreement_report", str(study.pk), format="xlsx", output=output)
    workbook = load_workbook(output)
    assert workbook.sheetnames[:2] == ["Overall", "Criteria"]
    assert workbook["Criteria"]["A1"].value == "code"


def test_the_command_refuses_an_unknown_study(db, tmp_path):
    studies = Study.objects.count()  # the module's shared study may exist already
    with pytest.raises(Exception, match="No study"):
        call_command("agreement_report", "nope", output=tmp_path / "x.json")
    assert Study.objects.count() == studies


@pytest.fixture
def always_pass_judge(study):
    run = JudgeRun.objects.create(judge_model="always-pass", prompt_version="v1")
    for item in study.items.all():
        for line in item.rubric_version.effective_rubric():
            for epoch in (1, 2):
                JudgeVerdict.objects.create(
                    run=run,
                    response=item.response,
                    criterion_version=line.version,
                    epoch=epoch,
                    verdict=True,
                )
    return run


def test_a_judge_that_always_passes_is_measured_as_lenient(study, always_pass_judge):
    report = judge_report(study, always_pass_judge)
    assert report.overall.n_units == load_study_ratings(study).n_units
    assert report.overall.leniency.difference > 0
    assert report.stability.epochs == 2 and report.stability.identical == 1.0
    universal = next(g for g in report.by_layer if g.label == "universal")
    assert universal.leniency.difference > report.overall.leniency.difference


def test_the_judge_figures_add_up_to_the_units_compared(study, always_pass_judge, client_as):
    report = judge_report(study, always_pass_judge)
    for group in (report.overall, *report.by_layer, *report.by_criterion):
        assert group.n_with_majority + group.n_tied == group.n_units
        assert group.n_with_gold + group.n_without_gold == group.n_units
        if group.vs_majority:
            assert int(group.vs_majority.confusion.sum()) == group.n_with_majority
    assert sum(g.n_units for g in report.by_criterion) == report.overall.n_units
    url = reverse("judging:calibration", args=[study.pk, always_pass_judge.pk])
    body = client_as(Role.VIEWER).get(url).content.decode()
    overall = report.overall
    assert f"no gold verdict on any of the {overall.n_units} units" in body
    lenient = overall.leniency
    assert f"(n = {lenient.n_items} units, {lenient.n_responses} responses)" in body
    assert lenient.n_responses < lenient.n_items  # several criteria of one response


def test_every_figure_of_the_judge_tables_carries_its_n(study, always_pass_judge, client_as):
    report = judge_report(study, always_pass_judge)
    url = reverse("judging:calibration", args=[study.pk, always_pass_judge.pk])
    body = client_as(Role.VIEWER).get(url).content.decode()
    for group in (*report.by_layer, *report.by_criterion):
        row = body.split(f'<th scope="row">{group.label}</th>', 1)[1].split("</tr>", 1)[0]
        majority = group.vs_majority
        assert row.count(f"(n = {group.n_with_majority})") == 2  # accuracy and kappa
        sensitivity, specificity = majority.sensitivity, majority.specificity
        assert f"(n = {sensitivity.denominator} passes / {specificity.denominator} fails)" in row
        assert f"(n = {group.n_gap_experts} experts held out, {group.n_gap_units} units)" in row
        alt = group.alt_test
        assert f"(n = {alt.n_tested} of {alt.n_experts} experts tested" in row
        assert (
            f"(n = {group.leniency.n_items} units, {group.leniency.n_responses} responses)" in row
        )
    overall = report.overall.alt_test
    assert f"(n = {overall.n_tested} of {overall.n_experts} experts tested" in body


def test_annotators_and_task_level_coefficients_carry_their_n(study, client_as):
    report = study_report(study)
    client = client_as(Role.MAINTAINER)
    body = client.get(reverse("agreement:study", args=[study.pk])).content.decode()
    exported = json.loads(
        client.get(reverse("agreement:study_report_json", args=[study.pk])).content
    )
    for rater, row in zip(report.raters, exported["annotators"], strict=True):
        assert rater.n_pairs > 0 and f"(n = {rater.n_pairs} pairs)" in body
        assert row["agreement with others n (pairs)"] == rater.n_pairs
        assert row["alpha without this annotator n"] == rater.alpha_without.n_units
    for scale, row in zip(report.scales, exported["task-level ratings"], strict=True):
        for name, found in (
            ("alpha interval", scale.alpha_interval),
            ("alpha ratio", scale.alpha_ratio),
        ):
            assert f"(n = {found.n_units})" in body
            assert row[f"{name} n"] == found.n_units
        assert row["alpha ordinal n"] == scale.alpha_ordinal.estimate.n_units


def test_the_judge_page_shows_the_criteria_a_page_at_a_time(
    study, always_pass_judge, client_as, monkeypatch
):
    monkeypatch.setattr(calibration, "CRITERIA_PER_PAGE", 2)
    client = client_as(Role.VIEWER)
    url = reverse("judging:calibration", args=[study.pk, always_pass_judge.pk])
    labels = [g.label for g in judge_report(study, always_pass_judge).by_criterion]
    body = client.get(url).content.decode()
    assert [label for label in labels if f'<th scope="row">{label}</th>' in body] == labels[:2]
    fragment = client.get(url, {"page": 2}, HTTP_HX_REQUEST="true").content.decode()
    assert fragment.lstrip().startswith('<section id="criteria"') and "<h1>" not in fragment
    assert f'<th scope="row">{labels[2]}</th>' in fragment


def test_a_cached_report_is_unpickled_once_per_process(study, monkeypatch):
    first = study_report(study)
    reads: list[str] = []
    read = agreement_cache.cache.get
    monkeypatch.setattr(
        agreement_cache.cache, "get", lambda key, *rest: reads.append(key) or read(key, *rest)
    )
    assert study_report(study) is first and reads == []
    cache.clear()  # the shared entry gone: the process's copy is not used either
    assert study_report(study) == first and study_report(study) is not first


def test_the_study_page_links_to_each_judge_and_the_judge_page_says_its_verdict(
    study, always_pass_judge, client_as
):
    client = client_as(Role.VIEWER)
    page = client.get(reverse("agreement:study", args=[study.pk])).content.decode()
    judge_url = reverse("judging:calibration", args=[study.pk, always_pass_judge.pk])
    assert judge_url in page
    body = client.get(judge_url).content.decode()
    assert str(always_pass_judge) == "always-pass · v1" and str(always_pass_judge) in body
    assert "not enough" in body or "can replace" in body or "cannot replace" in body
    assert "Confusion matrix" in body
    assert "Accuracy vs expert majority" in body and "(n = " in body


def test_the_agreement_index_lists_studies_with_their_progress(
    study, client_as, django_assert_max_num_queries
):
    client = client_as(Role.VIEWER)
    with django_assert_max_num_queries(6):
        body = client.get(reverse("agreement:index")).content.decode()
    assert reverse("agreement:study", args=[study.pk]) in body
    assert "<td>3</td><td>9</td>" in body  # 3 responses, each graded by 3 annotators


def test_the_leaderboard_compares_expert_and_judge_scores(study, always_pass_judge, client_as):
    client = client_as(Role.VIEWER)
    url = reverse("judging:leaderboard", args=[study.pk])
    experts_only = client.get(url).content.decode()
    assert "Experts [95% CI]" in experts_only and "Judge [95% CI]" not in experts_only
    body = client.get(url, {"judge": always_pass_judge.pk}).content.decode()
    assert "Judge [95% CI]" in body
    # Every score carries its n, in the table and in the chart.
    board = study_leaderboard(study, always_pass_judge)
    for row in board.rows:
        assert f"{row.model} (experts, n = {row.experts.n_responses})" in body
        assert f"{row.model} (judge, n = {row.judge.n_responses})" in body
    cells = sum(1 + (row.judge is not None) for row in board.rows)
    cells += sum(
        1 + (r.judge is not None) for _, groups in board.breakdowns for g in groups for r in g.rows
    )
    assert body.count('<span class="muted">(n = ') == cells


def test_the_agreement_judge_and_leaderboard_pages_write_decimals_the_spanish_way(
    study, always_pass_judge, client_as
):
    """In Spanish a decimal takes a comma (Django's formats for `es`), in the tables and in
    the charts' labels alike; English keeps the point."""
    client = client_as(Role.VIEWER)
    judge_url = reverse("judging:calibration", args=[study.pk, always_pass_judge.pk])
    epsilon = f"{judge_report(study, always_pass_judge).epsilon:.2f}"
    assert f"ε = {epsilon}" in client.get(judge_url).content.decode()
    spanish = client.get(judge_url, HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert f"ε = {epsilon.replace('.', ',')}" in spanish and f"ε = {epsilon}" not in spanish
    for url in (
        reverse("agreement:study", args=[study.pk]),
        reverse("judging:leaderboard", args=[study.pk]),
    ):
        english = client.get(url).content.decode()
        spanish = client.get(url, HTTP_ACCEPT_LANGUAGE="es").content.decode()
        assert ">1.0</text>" in english and ">1,0</text>" not in english  # the charts' axes
        assert ">1,0</text>" in spanish and ">1.0</text>" not in spanish
    assert "(expertos, n = " in spanish


def test_a_flipped_judge_verdict_refreshes_the_cached_calibration(study, always_pass_judge):
    before = judge_report(study, always_pass_judge).overall.leniency.difference
    JudgeVerdict.objects.filter(run=always_pass_judge, epoch=1).update(verdict=False)
    after = judge_report(study, always_pass_judge).overall.leniency.difference
    assert after < before


def test_task_level_ratings_and_consistency_are_reported(study, client_as):
    report = study_report(study)
    assert [s.prompt for s in report.scales] == PROMPTS
    authentic = report.scales[0]
    assert authentic.n_ratings == 9 and authentic.distribution == (0, 3, 0, 6, 0)
    labels = [c.label for c in report.consistency]
    assert labels[0] == "universal criteria, all tasks" and labels[-1] == "task-level ratings"
    body = client_as(Role.VIEWER).get(reverse("agreement:study", args=[study.pk])).content.decode()
    assert "Is this task authentic?" in body and "Cronbach" in body
    # Nine gradings: Cronbach's alpha is undefined, and the page says why.
    assert all(c.alpha.value is None for c in report.consistency)
    assert "too few respondents (n = 9; 15 needed)" in body


def test_a_large_study_is_computed_by_the_worker_while_the_page_waits(study, client_as, settings):
    settings.AGREEMENT_INLINE_LIMIT = 10
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    client = client_as(Role.VIEWER)
    url = reverse("agreement:study", args=[study.pk])
    waiting = client.get(url)
    assert waiting.status_code == 202
    assert 'hx-trigger="every 2s"' in waiting.content.decode()
    assert client.get(url, HTTP_HX_REQUEST="true").status_code == 204  # still computing
    compute_study_report.call(study.pk)  # what the worker does
    ready = client.get(url, HTTP_HX_REQUEST="true")
    assert ready.headers["HX-Refresh"] == "true"
    assert client.get(url).status_code == 200


def test_the_report_download_shows_progress_while_the_worker_computes_it(
    study, client_as, settings
):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    client = client_as(Role.MAINTAINER)
    url = reverse("agreement:study_report", args=[study.pk]) + "?format=xlsx"
    waiting = client.get(url)
    assert waiting.status_code == 200
    assert 'hx-trigger="every 1s"' in waiting.text and "0 of 1 result ready" in waiting.text
    assert Job.objects.filter(kind=Job.Kind.REPORT, key__startswith="download:").count() == 1
    polled = client.get(url, HTTP_HX_REQUEST="true")
    assert "<progress" in polled.text and "<html" not in polled.text
    prepare_study_download.call(study.pk)  # what the worker does
    ready = client.get(url, HTTP_HX_REQUEST="true")
    xlsx = reverse("agreement:study_report_xlsx", args=[study.pk])
    assert "hx-trigger" not in ready.text and f'href="{xlsx}"' in ready.text
    assert client.get(url).url == xlsx  # everything cached: straight to the file


def test_the_dataset_download_shows_progress_the_same_way(study, client_as, settings):
    """The dataset writes the report's and the judges' results too: its link on the study's
    page is the same page, counting them ready, then offering the ZIP."""
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.dummy.DummyBackend"}}
    client = client_as(Role.MAINTAINER)
    url = reverse("agreement:study_report", args=[study.pk]) + "?format=dataset"
    waiting = client.get(url)
    assert "Hugging Face dataset" in waiting.text and "0 of 1 result ready" in waiting.text
    assert Job.objects.filter(kind=Job.Kind.REPORT, key__startswith="download:").count() == 1
    prepare_study_download.call(study.pk)  # what the worker does
    ready = client.get(url, HTTP_HX_REQUEST="true")
    dataset = reverse("agreement:dataset", args=[study.pk])
    assert "hx-trigger" not in ready.text and f'href="{dataset}"' in ready.text
    assert client.get(url).url == dataset
    assert f'href="{url}"' in client.get(reverse("agreement:study", args=[study.pk])).text


def test_a_maintainer_sets_the_threshold_and_the_report_follows(study, client_as):
    client = client_as(Role.MAINTAINER)
    url = reverse("agreement:settings", args=[study.pk])
    data = {
        "validation_threshold": "0.8",
        "minimum_units": 2,
        "epsilon": "0.1",
        "resamples": 200,
        "seed": 3,
    }
    assert client.post(url, data).status_code == 302
    report = study_report(study)
    assert report.threshold == 0.8
    assert not any(c.verdict.startswith("too few units") for c in report.criteria)
    assert client.post(url, data | {"validation_threshold": "2"}).status_code == 422
    assert client.post(url, data | {"minimum_units": 1}).status_code == 422
    history = AuditEvent.objects.for_object(AnalysisSettings.objects.get(study=study))
    assert history.count() == 1


def test_rubric_export_can_keep_only_the_criteria_a_study_validated(study):
    starter_framework = study.framework
    report = study_report(study)
    chosen = report.criteria[0]
    decided = replace(criterion_validation(study, chosen, 0.8), status="validated")
    tables = rubric_tables(
        starter_framework, {chosen.criterion.key: [decided]}, studies=[study], only_validated=True
    )
    rows = [row for table in tables[1:] for row in table.rows]
    assert [row[0] for row in rows] == [chosen.criterion.code]
    assert rows[0][-9:] == [
        "validated",
        str(chosen.verdict),
        chosen.agreement.alpha.estimate.value,
        chosen.agreement.alpha.low,
        chosen.agreement.alpha.high,
        chosen.agreement.alpha.estimate.n_units,
        0.8,
        study.name,
        study.pk,
    ]
    every = rubric_tables(starter_framework, validation_in([study]), studies=[study])
    assert sum(len(t.rows) for t in every[1:]) > 1
    assert [c.header for c in every[1].columns][-9] == "Validation"


def test_the_export_command_reports_validation_from_a_study(study, tmp_path):
    output = tmp_path / "rubrics.xlsx"
    call_command("export_rubrics", output, validated_by=[str(study.pk)], only_validated=True)
    sheet = load_workbook(output)["Universal criteria"]
    assert "Validation" in [cell.value for cell in sheet[1]]
    # The dissenting annotator keeps every universal criterion from being validated.
    assert sheet.max_row == 1


def test_user_text_in_the_xlsx_report_stays_text_never_a_formula(study, tmp_path):
    formula = '=HYPERLINK("http://evil.example","click")'
    study.likert_items.filter(order=0).update(prompt=formula)
    CriterionVersion.objects.update(wording="-2+3+cmd|' /C calc'!A0")
    output = tmp_path / "report.xlsx"
    call_command("agreement_report", str(study.pk), format="xlsx", output=output)
    workbook = load_workbook(output)

    prompts = [c for row in workbook["Task-level ratings"].iter_rows() for c in row]
    wordings = [c for row in workbook["Criteria"].iter_rows() for c in row]
    hostile = [c for c in prompts if c.value == formula]
    hostile += [c for c in wordings if c.value == "-2+3+cmd|' /C calc'!A0"]
    assert len(hostile) > 1 and {c.data_type for c in hostile} == {"s"}
    assert not [c for sheet in workbook for row in sheet.iter_rows() for c in row
                if c.data_type == "f"]  # fmt: skip


def test_self_preference_compares_with_the_family_the_run_names(study, always_pass_judge):
    JudgeRun.objects.filter(pk=always_pass_judge.pk).update(model_family="Orion Labs")
    report = judge_report(study, JudgeRun.objects.get(pk=always_pass_judge.pk))
    assert report.self_preference is not None
    assert report.self_preference.family == "Orion Labs"


def test_n_a_grades_are_counted_as_left_out_and_add_up(study, client_as):
    """N/A is no rating: each table of the report says how many N/A grades it left out (on the
    page, in the JSON download and the API), and the criteria's add up to the study's."""
    grades = Grade.objects.filter(assignment__study_item__study=study).order_by("pk")
    first = grades.first()
    unit = grades.filter(
        assignment__study_item=first.assignment.study_item,
        criterion_version=first.criterion_version,
    )
    other = grades.exclude(criterion_version=first.criterion_version).first()
    changed = [*unit.values_list("pk", flat=True), other.pk]  # one unit all N/A, one more grade
    Grade.objects.filter(pk__in=changed).update(verdict=Verdict.NA, updated_at=timezone.now())

    report = study_report(study)
    assert report.overall.n_na == len(changed) == 4
    criteria = [c.agreement for c in report.criteria]
    assert sum(g.n_na for g in criteria) == report.overall.n_na
    assert sum(g.n_na for g in report.by_layer) == report.overall.n_na
    assert sum(g.n_na for g in report.by_competency) == report.overall.n_na
    ratings = load_study_ratings(study)
    assert ratings.na_item.size == 4 and ratings.raters == (
        "Annotator 1",
        "Annotator 2",
        "Annotator 3",
    )

    client = client_as(Role.MAINTAINER)
    body = client.get(reverse("agreement:study", args=[study.pk])).content.decode()
    assert "4 N/A grades left out: N/A is no rating" in body
    data = json.loads(client.get(reverse("agreement:study_report_json", args=[study.pk])).content)
    assert data["overall"]["N/A grades left out"] == 4
    assert sum(row["N/A grades left out"] for row in data["criteria"]) == 4
    api = client.get(f"/api/v1/studies/{study.pk}/agreement/").json()
    assert api["overall"]["N/A grades left out"] == 4
