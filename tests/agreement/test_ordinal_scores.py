"""Ordinal criteria in the leaderboard and the judge calibration, from the database: the same
scores as the score export, and the judge's levels compared with the experts'."""

import csv
import io
from collections import defaultdict

import krippendorff
import numpy as np
import pytest
from django.urls import reverse
from openpyxl import load_workbook
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from agreement.models import AnalysisSettings
from grading import services
from grading.adjudication import record_gold_verdict
from grading.models import Study, Verdict
from interchange.grades_export import csv_lines
from judging.calibration import judge_report, study_leaderboard
from judging.models import JudgeRun, JudgeVerdict
from tests import factories
from tests.reference_packages import cohen_kappa_score

pytestmark = pytest.mark.django_db

# Levels on the 0-4 scale per (grader, response number): they differ, so kappa is defined.
LEVELS = ([0, 1, 2, 3, 4, 2, 3, 1], [1, 1, 3, 3, 4, 1, 2, 0])


def _verdict(grader: int, number: int, position: int) -> str:
    """Binary verdicts that differ between graders and responses (the penalty mostly absent)."""
    return Verdict.FAIL if (grader + number + position) % 3 == 0 else Verdict.PASS


@pytest.fixture(scope="module")
def world(module_db: None) -> dict[str, int]:
    """Two graders grade eight responses (four by each of two models) to a task with an
    ordinal 0-4 criterion weighted 3, a binary one and a penalty; a judge run answers as
    grader 0 did."""
    sync_roles()
    graders = [
        create_user_with_role(f"leveller{n}", f"pw-leveller{n}", Role.ANNOTATOR) for n in range(2)
    ]
    task = factories.published_task(scale=(0, 4))
    responses = [factories.response(task, model) for model in ("alpha", "beta") for _ in "1234"]
    study = services.create_study(
        name="Levels on the leaderboard",
        framework=task.framework,
        responses=responses,
        annotators=graders,
        overlap=2,
        require_rationale_on_fail=False,
    )
    services.assign_study(study)
    AnalysisSettings.objects.create(study=study, resamples=200)  # cheap intervals
    number = {r.pk: n for n, r in enumerate(responses)}
    run = JudgeRun.objects.create(judge_model="levels-judge", prompt_version="v1")
    for index, grader in enumerate(graders):
        while (assignment := services.claim_next(study, grader)) is not None:
            n = number[assignment.study_item.response_id]
            for position, version in enumerate(factories.rubric_of(assignment)):
                level = LEVELS[index][n] if version.is_ordinal else None
                verdict = None if level is not None else _verdict(index, n, position)
                services.save_grade(
                    assignment, version.pk, verdict=verdict, level=level, rationale="", by=grader
                )
                if index == 0:
                    JudgeVerdict.objects.create(
                        run=run,
                        response_id=assignment.study_item.response_id,
                        criterion_version=version,
                        epoch=1,
                        verdict=None if level is not None else verdict == Verdict.PASS,
                        level=level,
                    )
            for item in study.likert_items.all():
                services.save_likert(assignment, item.pk, 4, by=grader)
            services.submit(assignment, by=grader)
    return {"study": study.pk, "run": run.pk}


@pytest.fixture
def study(world) -> Study:
    return Study.objects.get(pk=world["study"])


@pytest.fixture
def run(world) -> JudgeRun:
    return JudgeRun.objects.get(pk=world["run"])


def _exported_scores(study: Study) -> dict[str, dict[str, list[float]]]:
    """Per model, per response: the score export's score of each grader."""
    rows = csv.DictReader(io.StringIO("".join(csv_lines(study, scores=True)).lstrip("\ufeff")))
    found: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for row in rows:
        found[row["model"]][row["study_item"]].append(float(row["score"]))
    return found


def test_the_leaderboard_scores_each_model_as_the_score_export_does(study):
    exported = _exported_scores(study)
    expected = {
        model: np.mean([max(0.0, float(np.mean(s))) for s in responses.values()])
        for model, responses in exported.items()
    }
    board = study_leaderboard(study, None)
    assert {row.model: row.experts.mean for row in board.rows} == pytest.approx(expected)
    assert all(row.experts.n_responses == 4 for row in board.rows)
    # The levels count: the scores differ from what the binary criteria alone would give.
    assert any(0 < level < 4 for level in LEVELS[0])


def test_a_judge_answering_as_one_grader_gets_that_graders_exported_scores(study, run):
    first = {
        model: np.mean([max(0.0, scores[0]) for scores in responses.values()])
        for model, responses in _exported_scores(study).items()
    }
    board = study_leaderboard(study, run)
    assert {row.model: row.judge.mean for row in board.rows} == pytest.approx(first)


def test_the_judges_levels_are_compared_with_the_experts_levels(study, run, client_as):
    (levels,) = judge_report(study, run).ordinal
    assert levels.scale == (0, 4) and levels.n_judge_scores == 8
    assert (levels.agreement.n_items, levels.agreement.n_kappa_items) == (8, 8)
    assert levels.agreement.judge_mean == pytest.approx(np.mean(LEVELS[0]))
    experts = np.array(LEVELS, dtype=float)
    with_judge = np.vstack([experts, experts[:1]])
    for found, data in ((levels.alpha_experts, experts), (levels.alpha_with_judge, with_judge)):
        expected = krippendorff.alpha(
            reliability_data=data, level_of_measurement="ordinal", value_domain=range(5)
        )
        assert found.estimate.value == pytest.approx(expected)
        assert found.estimate.n_units == 8 and found.low is None  # 8 responses: withheld
        assert found.unreliable_reason == (
            "interval unreliable: 8 responses (coverage checked from 20)"
        )
    kappa = levels.agreement.linear  # 8 responses: its interval withheld, with the reason
    assert kappa.judge.low is None and kappa.judge.unreliable_reason.startswith(
        "interval unreliable: 8 responses"
    )
    body = client_as(Role.VIEWER).get(reverse("judging:calibration", args=[study.pk, run.pk]))
    assert "Ordinal alpha: experts → with judge" in body.content.decode()


def test_the_judges_levels_are_compared_with_the_experts_median_level(study, run, client_as):
    (levels,) = judge_report(study, run).ordinal
    # The lower median of two experts is the lower level: [0, 1, 2, 3, 4, 1, 2, 0]; the judge
    # (grader 0) is one above it on the last three responses.
    median = np.minimum(*LEVELS)
    found = levels.vs_experts
    assert found.n == 8
    assert (found.exact.numerator, found.within_one.numerator) == (5, 8)
    assert found.quadratic_kappa.value == pytest.approx(
        cohen_kappa_score(median, LEVELS[0], weights="quadratic", labels=range(5))
    )
    assert found.bland_altman.mean_difference == pytest.approx(3 / 8)
    text = client_as(Role.VIEWER).get(reverse("judging:calibration", args=[study.pk, run.pk]))
    text = text.content.decode()
    row = text[text.index("Experts' median level") :]
    assert "<td>8</td>\n  <td>62%</td>\n  <td>100%</td>\n  <td>0.89</td>" in row
    assert '<td>0.38 <span class="muted">(-0.64 to 1.39)</span></td>' in row
    url = reverse("judging:calibration_json", args=[study.pk, run.pk])
    (row,) = client_as(Role.MAINTAINER).get(url).json()["ordinal criteria"]
    assert row["experts' median level n"] == 8
    assert row["experts' median level bias"] == pytest.approx(3 / 8)
    assert row["experts' median level quadratic kappa"] == pytest.approx(
        found.quadratic_kappa.value
    )


def test_the_judges_levels_are_compared_with_the_gold_levels(study, run, make_user, client_as):
    """On the judge page, in its downloads and in the API, each with n."""
    (before,) = judge_report(study, run).ordinal
    assert before.vs_gold is None  # nothing adjudicated yet
    adjudicator = make_user(Role.MAINTAINER)
    items = sorted(study.items.select_related("response"), key=lambda i: i.response_id)
    rubric = items[0].rubric_version.effective_rubric()
    ordinal = next(line.version for line in rubric if line.version.is_ordinal)
    # The judge answers as grader 0: levels 0, 2, 2, 3 on responses 0, 2, 5, 6.
    for number, level in ((0, 0), (2, 4), (5, 1), (6, None)):
        record_gold_verdict(
            items[number],
            ordinal.pk,
            verdict=Verdict.NA if level is None else "",
            level=level,
            note="",
            by=adjudicator,
            base_revision=0,
        )
    (levels,) = judge_report(study, run).ordinal
    assert levels.vs_gold is not None
    assert levels.vs_gold.n == 3  # the N/A gold is left out
    assert (levels.vs_gold.exact.numerator, levels.vs_gold.within_one.numerator) == (1, 2)
    # Judge 0, 2, 2 against gold 0, 4, 1: differences 0, -2, 1.
    assert levels.vs_gold.bland_altman.mean_difference == pytest.approx(-1 / 3)
    assert levels.vs_gold.quadratic_kappa.value == pytest.approx(
        cohen_kappa_score([0, 4, 1], [0, 2, 2], weights="quadratic", labels=range(5))
    )
    body = client_as(Role.VIEWER).get(reverse("judging:calibration", args=[study.pk, run.pk]))
    text = body.content.decode()
    row = text[text.index("Adjudicated gold level") :]
    assert "<td>3</td>\n  <td>33%</td>\n  <td>67%</td>" in row
    url = reverse("judging:calibration_json", args=[study.pk, run.pk])
    (row,) = client_as(Role.MAINTAINER).get(url).json()["ordinal criteria"]
    assert row["gold level exact"] == pytest.approx(1 / 3)
    assert (row["gold level within one"], row["gold level n"]) == (pytest.approx(2 / 3), 3)
    _, key = ApiToken.issue(make_user(Role.VIEWER), "tests")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    report = api.get(reverse("api:study-calibration", args=[study.pk, run.pk])).json()
    gold = report["ordinal"][0]["vs_gold"]
    assert (gold["n"], gold["exact"]["value"]) == (3, pytest.approx(1 / 3))


def test_the_judge_calibration_downloads_hold_a_row_per_ordinal_criterion(study, run, client_as):
    (levels,) = judge_report(study, run).ordinal
    client = client_as(Role.MAINTAINER)
    document = client.get(reverse("judging:calibration_json", args=[study.pk, run.pk])).json()
    (row,) = document["ordinal criteria"]
    assert (row["criterion"], row["scale min"], row["scale max"]) == (levels.key, 0, 4)
    assert row["ordinal alpha with judge"] == pytest.approx(levels.alpha_with_judge.estimate.value)
    assert row["ordinal alpha experts n"] == 8 and row["responses"] == 8
    assert (row["gold level exact"], row["gold level n"]) == (None, 0)  # nothing adjudicated
    workbook = client.get(reverse("judging:calibration_xlsx", args=[study.pk, run.pk]))
    sheet = load_workbook(io.BytesIO(workbook.content))["Ordinal criteria"]
    header = [cell.value for cell in sheet[1]]
    assert sheet.max_row == 2 and sheet.cell(2, header.index("criterion") + 1).value == levels.key


def test_the_api_gives_the_judges_levels_and_its_leaderboard_score(study, run, make_user):
    _, key = ApiToken.issue(make_user(Role.VIEWER), "tests")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    report = api.get(reverse("api:study-calibration", args=[study.pk, run.pk])).json()
    [levels] = report["ordinal"]
    assert (levels["scale"], levels["n_judge_scores"]) == ([0, 4], 8)
    assert levels["alpha_with_judge"]["estimate"]["n_units"] == 8
    board = api.get(reverse("api:study-leaderboard", args=[study.pk]), {"judge": run.pk}).json()
    expected = {row.model: row.judge.mean for row in study_leaderboard(study, run).rows}
    assert {row["model"]: row["judge"]["mean"] for row in board["rows"]} == expected
