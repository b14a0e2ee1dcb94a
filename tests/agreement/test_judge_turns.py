"""The judge's verdicts on the tutor turns of dialogues against the experts' grades of the same
turns, from the database: the judge page, its downloads and the API carry the figures with
their n, and the per-response figures (scores, leaderboard) ignore the turns' rows."""

import io
import json

import pytest
from django.urls import reverse
from openpyxl import load_workbook
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from agreement.models import AnalysisSettings
from grading import services
from grading.models import Study
from judging.calibration import judge_report, study_leaderboard, triage
from judging.models import JudgeRun, JudgeVerdict
from judging.verdict_import import import_verdicts
from rubrics.models import Turn
from tests import factories

pytestmark = pytest.mark.django_db

P, F = "pass", "fail"
# Criterion 01 (every turn must pass): per dialogue, per tutor turn (1, 3, 5), the two experts'
# grades and the judge's verdict.
EXPERTS = (((P, P), (F, F), (P, F)), ((P, P), (P, P), (F, F)))
JUDGE = ((True, True, True), (True, False, True))


@pytest.fixture(scope="module")
def world(module_db: None, tmp_path_factory) -> dict[str, int]:
    sync_roles()
    graders = [
        create_user_with_role(f"turner{n}", f"pw-turner{n}", Role.ANNOTATOR) for n in range(2)
    ]
    task = factories.published_task(turn_rule="all")
    dialogues = [factories.response(task, model, turns=6) for model in ("alpha", "beta")]
    for n, dialogue in enumerate(dialogues):
        dialogue.external_id = f"dlg-{n}"
        dialogue.save()
    study = services.create_study(
        name="Dialogues judged turn by turn",
        framework=task.framework,
        responses=dialogues,
        annotators=graders,
        overlap=2,
        require_rationale_on_fail=False,
        likert_prompts=(),
    )
    services.assign_study(study)
    AnalysisSettings.objects.create(study=study, resamples=200)
    number = {d.pk: n for n, d in enumerate(dialogues)}
    for index, grader in enumerate(graders):
        while (assignment := services.claim_next(study, grader)) is not None:
            n = number[assignment.study_item.response_id]
            turns = services.tutor_turns(assignment.study_item.response_id)
            for version in factories.rubric_of(assignment):
                if version.criterion.code.endswith("-01"):
                    for turn, grades in zip(turns, EXPERTS[n], strict=True):
                        services.save_turn_grade(
                            assignment, version.pk, turn.pk, verdict=grades[index],
                            rationale="", by=grader,
                        )  # fmt: skip
                else:  # the penalty: absent on every turn, for both experts and the judge
                    factories.answer(assignment, version, F if version.per_turn else P, "", grader)
            services.submit(assignment, by=grader)
    lines = []
    for n in range(2):
        for index, verdict in zip((1, 3, 5), JUDGE[n], strict=True):
            lines.append({"criterion_id": f"{task.key}-01", "verdict": verdict, "turn": index})
            lines.append({"criterion_id": f"{task.key}-03", "verdict": False, "turn": index})
        lines.append({"criterion_id": f"{task.key}-02", "verdict": True, "response_id": ""})
        for line in lines[-7:]:
            line |= {"response_id": f"dlg-{n}", "judge_model": "turn-judge", "run_id": "t1"}
    path = tmp_path_factory.mktemp("verdicts") / "verdicts.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    report = import_verdicts(path, task.framework)
    assert report.ok, report.problem_lines()
    return {"study": study.pk, "run": JudgeRun.objects.get(run_id="t1").pk}


@pytest.fixture
def study(world) -> Study:
    return Study.objects.get(pk=world["study"])


@pytest.fixture
def run(world) -> JudgeRun:
    return JudgeRun.objects.get(pk=world["run"])


def test_each_turn_is_compared_with_the_experts_majority_on_that_turn(study, run):
    first, penalty, every = judge_report(study, run).turns
    assert first.label.endswith("-01") and every.label == "all turn-level criteria"
    # Criterion 01 by hand: the first dialogue's third turn is tied (left out); of the other
    # five, the judge agrees on the first dialogue's first turn and the second's first: 2 / 5.
    # Table (rows: majority fail, pass; columns: judge fail, pass) [[0, 2], [1, 2]]:
    # p_o = 2/5, p_e = 2/5 * 1/5 + 3/5 * 4/5 = 14/25, kappa = (10/25 - 14/25) / (11/25) = -4/11.
    calibration = first.vs_majority.calibration
    assert (calibration.accuracy.numerator, calibration.accuracy.denominator) == (2, 5)
    assert calibration.confusion.tolist() == [[0, 2], [1, 2]]
    assert calibration.kappa.value == pytest.approx(-4 / 11)
    assert (first.n_turns, first.n_compared, first.n_responses, first.tied) == (6, 5, 2, 1)
    assert (first.not_judged, first.unparseable, first.graded_na) == (0, 0, 0)
    # Two dialogues: the intervals are estimated on resampled dialogues, their bounds withheld.
    assert first.vs_majority.kappa.method == "percentile bootstrap (clusters)"
    assert first.vs_majority.kappa.unreliable_reason.startswith("interval unreliable: 2 responses")
    assert penalty.vs_majority.calibration.accuracy.numerator == 6  # all agree, fail
    assert penalty.vs_majority.calibration.kappa.value is None  # no variation
    assert (every.n_compared, every.vs_majority.calibration.accuracy.numerator) == (11, 8)


def test_the_response_figures_count_the_folded_verdict_not_the_turns(study, run):
    first = JudgeVerdict.objects.per_response().get(
        run=run, criterion_version__criterion__code__endswith="-01", response__external_id="dlg-1"
    )
    assert first.verdict is False  # every turn must pass: its second turn fails
    assert JudgeVerdict.objects.filter(run=run).per_turn().count() == 12
    overall = judge_report(study, run).overall
    assert overall.n_units == 6  # two dialogues, three criteria: no turn counted as a unit
    board = {row.model: row.judge.mean for row in study_leaderboard(study, run).rows}
    JudgeVerdict.objects.filter(run=run).per_turn().delete()
    without = {row.model: row.judge.mean for row in study_leaderboard(study, run).rows}
    assert board == without  # the same scores with or without the turns' rows


def test_the_page_the_downloads_and_the_api_carry_the_turn_figures_with_n(
    study, run, client_as, make_user
):
    page = client_as(Role.VIEWER).get(reverse("judging:calibration", args=[study.pk, run.pk]))
    text = page.content.decode()
    assert "Turn-level criteria: the judge on each tutor turn" in text
    assert "5 of 6 graded turns, in 2 dialogues" in text
    assert "0 not judged, 0 answers unreadable, 1 experts tied; 0 turn grades N/A" in text
    client = client_as(Role.MAINTAINER)
    url = reverse("judging:calibration_json", args=[study.pk, run.pk])
    rows = client.get(url).json()["turn-level criteria, per turn"]
    first = rows[0]
    assert first["accuracy vs majority per turn"] == pytest.approx(2 / 5)
    assert first["accuracy vs majority per turn n"] == 5
    assert first["kappa vs majority per turn"] == pytest.approx(-4 / 11)
    assert first["kappa vs majority per turn n"] == 5
    assert (first["dialogues"], first["turns left out: experts tied"]) == (2, 1)
    assert first["kappa vs majority per turn interval unreliable because"]
    workbook = client.get(reverse("judging:calibration_xlsx", args=[study.pk, run.pk]))
    sheet = load_workbook(io.BytesIO(workbook.content))["Turn-level criteria"]
    header = [cell.value for cell in sheet[1]]
    assert sheet.max_row == 4  # two criteria and every turn-level criterion together
    assert sheet.cell(2, header.index("kappa vs majority per turn n") + 1).value == 5
    _, key = ApiToken.issue(make_user(Role.VIEWER), "tests")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    report = api.get(reverse("api:study-calibration", args=[study.pk, run.pk])).json()
    assert report["turns"][0]["vs_majority"]["calibration"]["kappa"]["n_units"] == 5
    assert report["turn figures"][0]["accuracy vs majority per turn n"] == 5


def test_a_triage_card_on_a_turn_level_criterion_shows_which_turn_differs(study, run, client_as):
    page = client_as(Role.MAINTAINER).get(reverse("judging:triage", args=[study.pk, run.pk]))
    text = page.content.decode()
    # The first dialogue: the judge passes every turn, the experts fail its second tutor turn
    # (its fourth turn), so the dialogue fails for them and passes for the judge.
    assert "Turn by turn" in text
    card = text[text.index("Turn by turn") :]
    assert "Turn 2: the judge <strong>pass</strong>; Expert A pass, Expert B pass</li>" in card
    assert (
        "Turn 4: the judge <strong>pass</strong>; Expert A fail, Expert B fail "
        '<span class="badge">differs</span></li>'
    ) in card
    assert "Turn 6: the judge <strong>pass</strong>; Expert A pass, Expert B fail</li>" in card


def test_turn_agreement_and_the_alternative_annotator_test_are_on_the_page_and_downloads(
    study, run, client_as
):
    first = judge_report(study, run).turns[0]
    # Criterion 01, six judged turns, two experts each: alpha of the experts on the turns by
    # hand (nominal, Krippendorff 2011): pairable values 12, of which 7 pass and 5 fail;
    # disagreeing pairs: one turn (P, F) gives 2 ordered pairs: D_o = 2 / 12; D_e = 2 * 5 * 7 /
    # (12 * 11); alpha = 1 - D_o / D_e = 1 - (1/6) / (70/132) = 1 - 22/70.
    assert first.agreement.n_units == 6
    assert first.agreement.alpha_experts.value == pytest.approx(1 - 22 / 70)
    assert first.agreement.alpha_with_judge.n_units == 6
    assert first.agreement.alt_test.winning_rate is None  # two experts: too few to test
    text = client_as(Role.VIEWER).get(reverse("judging:calibration", args=[study.pk, run.pk]))
    text = text.content.decode()
    assert "Alternative annotator test, per turn" in text
    assert "(n = 6 → 6 turns with two ratings or more)" in text
    url = reverse("judging:calibration_json", args=[study.pk, run.pk])
    row = client_as(Role.MAINTAINER).get(url).json()["turn-level criteria, per turn"][0]
    assert row["alpha experts per turn"] == pytest.approx(1 - 22 / 70)
    assert row["alpha experts per turn n"] == 6
    assert row["AC1 with judge per turn n"] == 6
    assert row["alt-test per turn experts tested"] == 0
    assert row["alt-test per turn verdict"].startswith("not enough data")


def test_the_triage_page_lists_each_turn_where_the_judge_differs_with_its_text(
    study, run, client_as, django_assert_max_num_queries
):
    found = triage(study, run)
    # Criterion 01: the first dialogue's second tutor turn (experts fail, judge pass), the
    # second's second (experts pass, judge fail) and third (experts fail, judge pass).
    assert [(line.item, line.turn, line.verdict, line.majority) for line in found.turns] == [
        (0, found.turns[0].turn, 1, 0),
        (1, found.turns[1].turn, 0, 1),
        (1, found.turns[2].turn, 1, 0),
    ]
    turns = {t.pk: t for t in Turn.objects.filter(pk__in=[line.turn for line in found.turns])}
    assert [turns[line.turn].index for line in found.turns] == [3, 3, 5]
    url = reverse("judging:triage", args=[study.pk, run.pk])
    client = client_as(Role.MAINTAINER)
    client.get(url)  # the session and the cache warm
    # The queue's queries and one for the text of the turns listed.
    with django_assert_max_num_queries(23):
        page = client.get(url)
    text = page.content.decode()
    assert "Turn-level criteria: the turns where the judge differs" in text
    section = text[text.index("the turns where the judge differs") :]
    assert "3 tutor turns where the judge" in section
    first = turns[found.turns[0].turn]
    assert f"<td>4</td>\n      <td>{first.content[:40]}" in section


def test_the_triage_page_quotes_a_turn_as_plain_text_not_markdown(study, run, client_as):
    found = triage(study, run)
    Turn.objects.filter(pk=found.turns[0].turn).update(content="# Try again\n\nSay **went**.")
    page = client_as(Role.MAINTAINER).get(reverse("judging:triage", args=[study.pk, run.pk]))
    section = page.content.decode().split("the turns where the judge differs", 1)[1]
    assert "<td>Try again Say went.</td>" in section
    assert "**" not in section and "# Try" not in section
