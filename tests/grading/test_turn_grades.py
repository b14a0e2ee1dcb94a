"""Turn-level criteria: a dialogue's tutor turns graded one by one, the response's grade
derived by the criterion's turn rule, revisions after submission."""

import io
import json

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.urls import reverse
from openpyxl import load_workbook
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import Role
from agreement.services import study_report
from grading import services
from grading.models import Assignment, Grade, GradeRevision, TurnGrade, TurnGradeRevision
from interchange import offline
from interchange.importers import import_responses
from rubrics import services as rubric_services
from rubrics.models import CriterionVersion, Response, Turn
from tests import factories
from tests.conftest import htmx
from tests.interchange.test_offline_import import fill

pytestmark = pytest.mark.django_db


@pytest.fixture
def dialogue(make_user):
    """One annotator's assignment on a dialogue of 6 turns (3 tutor turns), on a task whose
    first criterion is per turn by 'a share of the turns' (50%) and whose penalty is per turn
    by 'any'."""
    grader = make_user(Role.ANNOTATOR)
    task = factories.published_task(turn_rule="share", turn_share=50)
    answer = factories.response(task, turns=6)
    study = services.create_study(
        name="Dialogues",
        framework=task.framework,
        responses=[answer],
        annotators=[grader],
        overlap=1,
        likert_prompts=(),
    )
    services.assign_study(study)
    assignment = Assignment.objects.get(study_item__study=study)
    versions = {v.criterion.code[-2:]: v for v in factories.rubric_of(assignment)}
    return assignment, grader, versions, services.tutor_turns(answer.pk)


def test_the_response_grade_follows_the_rule_once_every_tutor_turn_has_a_verdict(dialogue):
    assignment, grader, versions, turns = dialogue
    share = versions["01"]
    assert [t.index for t in turns] == [1, 3, 5]
    services.save_turn_grade(
        assignment, share.pk, turns[0].pk, verdict="pass", rationale=None, by=grader
    )
    _, grade, _ = services.save_turn_grade(
        assignment, share.pk, turns[1].pk, verdict="fail", rationale="too long", by=grader
    )
    assert grade.verdict == ""  # the third turn has no verdict yet
    _, grade, _ = services.save_turn_grade(
        assignment, share.pk, turns[2].pk, verdict="fail", rationale="off topic", by=grader
    )
    assert grade.verdict == "fail"  # 1 of 3 turns < 50%
    assert grade.rationale == "Turn 4: too long\nTurn 6: off topic"
    _, grade, _ = services.save_turn_grade(
        assignment, share.pk, turns[2].pk, verdict="pass", rationale="", by=grader
    )
    assert grade.verdict == "pass"  # 2 of 3
    assert TurnGrade.objects.filter(assignment=assignment).count() == 3


def test_a_dialogue_needs_every_tutor_turn_graded_before_submitting(dialogue):
    assignment, grader, versions, turns = dialogue
    for version in versions.values():
        if not version.per_turn:
            services.save_grade(assignment, version.pk, verdict="pass", rationale="", by=grader)
    penalty = versions[max(versions)]
    services.save_turn_grade(
        assignment, penalty.pk, turns[0].pk, verdict="pass", rationale="", by=grader
    )
    messages = [p.message for p in services.missing_answers(assignment)]
    assert any(m.endswith("Turn 2: Present needs a rationale.") for m in messages)
    assert sum("Turn 6: choose" in m for m in messages) == 2  # both turn-level criteria
    with pytest.raises(services.Incomplete):
        services.submit(assignment, by=grader)


def test_a_change_after_submission_keeps_the_turn_and_response_grades_it_replaced(dialogue):
    assignment, grader, versions, turns = dialogue
    for version in versions.values():
        for turn in turns if version.per_turn else [None]:
            if turn is None:
                services.save_grade(assignment, version.pk, verdict="pass", rationale="", by=grader)
            else:
                verdict = "fail" if version.is_penalty else "pass"
                services.save_turn_grade(
                    assignment, version.pk, turn.pk, verdict=verdict, rationale="", by=grader
                )
    services.submit(assignment, by=grader)
    penalty = versions[max(versions)]
    assert Grade.objects.get(assignment=assignment, criterion_version=penalty).verdict == "fail"
    with pytest.raises(services.SubmittedIncomplete, match="rationale"):
        services.save_turn_grade(
            assignment, penalty.pk, turns[1].pk, verdict="pass", rationale=None, by=grader
        )
    services.save_turn_grade(
        assignment, penalty.pk, turns[1].pk, verdict="pass", rationale="scolds", by=grader
    )
    grade = Grade.objects.get(assignment=assignment, criterion_version=penalty)
    assert (grade.verdict, grade.rationale) == ("pass", "Turn 4: scolds")  # any turn
    assert GradeRevision.objects.get(grade=grade).verdict == "fail"
    assert TurnGradeRevision.objects.get(turn_grade__turn=turns[1]).verdict == "fail"


def test_turn_level_criteria_refuse_a_whole_response_grade_and_a_turn_not_the_tutors(dialogue):
    assignment, grader, versions, turns = dialogue
    with pytest.raises(services.GradingError, match="each tutor turn"):
        services.save_grade(assignment, versions["01"].pk, verdict="pass", rationale="", by=grader)
    learner_turn = turns[0].response.turns.get(index=0)
    with pytest.raises(services.GradingError, match="not one of the tutor's turns"):
        services.save_turn_grade(
            assignment, versions["01"].pk, learner_turn.pk, verdict="pass", rationale="", by=grader
        )
    with pytest.raises(services.GradingError, match="whole response"):
        services.save_turn_grade(
            assignment, versions["02"].pk, turns[0].pk, verdict="pass", rationale="", by=grader
        )


def test_graded_turns_of_a_dialogue_are_kept_when_it_is_recorded_again(dialogue):
    assignment, grader, versions, turns = dialogue
    answer = assignment.study_item.response
    answer.external_id = "d1"
    answer.save()
    services.save_turn_grade(
        assignment, versions["01"].pk, turns[0].pk, verdict="pass", rationale="", by=grader
    )
    current, created = rubric_services.record_response(
        answer.task,
        answer.model_name,
        turns=[rubric_services.TurnSpec("assistant", "Hi")],
        external_id="d1",
    )
    assert (created, current.version, current.turns.count()) == (False, 2, 1)
    assert answer.turns.count() == 6
    assert TurnGrade.objects.get(assignment=assignment, turn=turns[0]).verdict == "pass"


def test_an_import_changing_a_graded_dialogue_makes_its_next_version_naming_it(dialogue, tmp_path):
    assignment, grader, versions, turns = dialogue
    answer = assignment.study_item.response
    Response.objects.filter(pk=answer.pk).update(external_id="d1")
    services.save_turn_grade(
        assignment, versions["01"].pk, turns[0].pk, verdict="pass", rationale="", by=grader
    )
    line = {
        "id": "d1",
        "task_key": answer.task.key,
        "model": answer.model_name,
        "turns": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}],
    }
    path = tmp_path / "responses.jsonl"
    path.write_text(json.dumps(line) + "\n")
    report = import_responses(path, answer.task.framework)
    assert report.ok, report.problem_lines()
    assert [(v.response_id, v.changed) for v in report.new_versions] == [("d1", ("turns",))]
    assert answer.turns.count() == 6
    assert assignment.study_item.response_id == answer.pk


def test_a_share_rule_needs_its_percentage():
    version = CriterionVersion(wording="Adjusts to the learner.", weight=2, turn_rule="share")
    with pytest.raises(ValidationError, match="percentage"):
        version.clean()
    version.turn_rule, version.turn_share = "any", 40
    version.clean()
    assert version.turn_share is None
    version.applies_to, version.scoring_type, version.scale_min, version.scale_max = (
        "turn",
        "ordinal",
        0,
        3,
    )
    with pytest.raises(ValidationError, match="ordinal criterion applies to the whole"):
        version.clean()


# ----- the grading page ---------------------------------------------------------------------
def _client(user):
    client = Client()
    client.force_login(user)
    return client


@pytest.mark.parametrize("turns", [4, 12])
def test_the_page_shows_each_tutor_turn_as_a_step_in_a_fixed_number_of_queries(
    make_user, turns, django_assert_num_queries
):
    grader = make_user(Role.ANNOTATOR)
    task = factories.published_task(turn_rule="all")
    study = services.create_study(
        name=f"Dialogues {turns}",
        framework=task.framework,
        annotators=[grader],
        overlap=1,
        responses=[factories.response(task, turns=turns)],
        likert_prompts=(),
    )
    services.assign_study(study)
    mine = Assignment.objects.get(study_item__study=study)
    url = reverse("grading:assignment", args=[mine.pk])
    client = _client(grader)
    client.get(url)
    # the grading page's 12, the dialogue's turns, its tutor turns, the turn grades
    with django_assert_num_queries(15):
        html = client.get(url).content.decode()
    tutor = turns // 2
    assert html.count('class="criterion turn-grade') == 2 * tutor  # two turn-level criteria
    assert html.count(" data-step ") == 2 * tutor + 1  # and one whole-response criterion
    assert f"of {2 * tutor + 1} answered" in html
    assert "true of a dialogue when true of every turn" in html


def test_a_turn_autosave_swaps_the_turn_and_the_dialogues_verdict(dialogue):
    assignment, grader, versions, turns = dialogue
    penalty = versions[max(versions)]
    client = htmx(_client(grader))
    url = reverse("grading:save_turn_grade", args=[assignment.pk, penalty.pk, turns[2].pk])
    reply = client.post(url, {"verdict": "pass", "rationale": "Scolds the learner"})
    html = reply.content.decode()
    assert reply.status_code == 200
    assert f'id="criterion-{penalty.pk}-turn-{turns[2].pk}"' in html
    assert 'hx-swap-oob="true"' in html and "every turn needs a verdict" in html
    for turn in turns[:2]:
        url = reverse("grading:save_turn_grade", args=[assignment.pk, penalty.pk, turn.pk])
        html = client.post(url, {"verdict": "fail"}).content.decode()
    assert "For the dialogue: <strong>Present</strong>" in html  # any turn
    learner = turns[0].response.turns.get(index=0)
    url = reverse("grading:save_turn_grade", args=[assignment.pk, penalty.pk, learner.pk])
    refused = client.post(url, {"verdict": "pass"})
    assert refused.status_code == 422
    assert "not one of the tutor" in refused.content.decode()


# ----- agreement --------------------------------------------------------------------------------
def test_agreement_is_reported_on_each_turn_and_on_the_dialogue(make_user, client_as):
    graders = [make_user(Role.ANNOTATOR) for _ in range(2)]
    task = factories.published_task(turn_rule="any")
    study = services.create_study(
        name="Turn agreement",
        framework=task.framework,
        responses=[factories.response(task, turns=6) for _ in range(3)],
        annotators=graders,
        overlap=2,
        likert_prompts=(),
        require_rationale_on_fail=False,
    )
    services.assign_study(study)

    def verdict(index, assignment, position, line):
        if index == 1 and line.version.per_turn and line.version.weight < 0:
            return "na"
        return "pass" if index == 0 or position != 0 else "fail"

    factories.grade_study(study, graders, verdict)
    # the second grader fails the first criterion on every turn: the graders split on its 9
    # turns and on its 3 dialogues; they call the penalty N/A on every turn
    report = study_report(study)
    rows = {per_turn.label: (per_turn, per_response) for per_turn, per_response in report.turns}
    first = next(key for key in rows if key.endswith("-01: each turn"))
    per_turn, per_response = rows[first]
    assert (per_turn.summary.n_units, per_turn.n_items) == (9, 3)
    assert per_turn.percent_agreement.estimate.value == 0.0
    assert per_response is not None and per_response.summary.n_units == 3
    assert per_turn.n_na == 0
    # The second grader's N/A turns are left out and counted, as the dialogues' N/A grades are.
    penalty = next(key for key in rows if key != first)
    per_turn, per_response = rows[penalty]
    assert (per_turn.summary.n_units, per_turn.n_single, per_turn.n_na) == (0, 9, 9)
    assert per_response is not None and per_response.n_na == 3
    page = client_as(Role.MAINTAINER).get(reverse("agreement:study", args=[study.pk]))
    body = page.content.decode()
    assert "Turn-level criteria: each turn and the dialogue" in body
    assert "(9 N/A grades left out)" in body
    # The downloads carry the same rows, per turn and per dialogue.
    maintainer = client_as(Role.MAINTAINER)
    document = maintainer.get(reverse("agreement:study_report_json", args=[study.pk])).json()
    downloaded = {row["group"]: row for row in document["turn-level criteria"]}
    assert (downloaded[first]["pairable units"], downloaded[first]["items"]) == (9, 3)
    assert downloaded[penalty]["N/A grades left out"] == 9
    assert len(downloaded) == 4  # each criterion on each turn and on the dialogue
    workbook = maintainer.get(reverse("agreement:study_report_xlsx", args=[study.pk]))
    sheet = load_workbook(io.BytesIO(workbook.content))["Turn-level criteria"]
    groups = [row[0] for row in sheet.iter_rows(min_row=2, values_only=True)]
    assert sorted(groups) == sorted(downloaded)


def test_the_offline_workbook_has_a_row_per_tutor_turn_and_records_it(dialogue, tmp_path):
    assignment, grader, versions, turns = dialogue
    path = tmp_path / "grading.xlsx"
    offline.write_workbook(path, assignment.study_item.study, grader)
    sheet = load_workbook(path)["Grading"]
    ids = [sheet.cell(row, 2).value for row in range(2, sheet.max_row + 1)]
    share = versions["01"]
    assert [i for i in ids if i and i.startswith(f"{share.pk}.")] == [
        f"{share.pk}.{t.pk}" for t in turns
    ]
    assert str(versions["02"].pk) in ids  # graded on the whole dialogue
    fill(path, verdict="Fail", rationale="Too long.")
    report = offline.import_workbook(path, assignment.study_item.study, grader, submit=True)
    assert report.problems == [] and report.submitted == 1
    assert TurnGrade.objects.filter(assignment=assignment).count() == 6  # 2 criteria x 3 turns
    grade = Grade.objects.get(assignment=assignment, criterion_version=share)
    assert grade.verdict == "fail" and grade.rationale.startswith("Turn 2: Too long.")
    again = offline.import_workbook(path, assignment.study_item.study, grader)
    assert again.answers_changed == 0


def test_the_api_saves_a_turn_grade_and_gives_the_dialogues_grade(dialogue):
    assignment, grader, versions, turns = dialogue
    _, key = ApiToken.issue(grader, "tests")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    share = versions["01"]
    for turn in turns:
        body = {"assignment": assignment.pk, "criterion_version": share.pk, "turn": turn.pk}
        created = api.post("/api/v1/turn-grades/", body | {"verdict": "pass"}, format="json")
        assert created.status_code == 201, created.content
    assert created.json()["verdict"] == "pass" and created.json()["turn"] == turns[-1].pk
    learner = turns[0].response.turns.get(index=0)
    refused = api.post(
        "/api/v1/turn-grades/",
        {"assignment": assignment.pk, "criterion_version": share.pk, "turn": learner.pk},
        format="json",
    )
    assert refused.status_code in (400, 422) and "tutor" in refused.content.decode()
    grades = api.get("/api/v1/grades/", {"assignment": assignment.pk}).json()["results"]
    assert [g["verdict"] for g in grades if g["criterion_version"] == share.pk] == ["pass"]
    listed = api.get("/api/v1/turn-grades/", {"assignment": assignment.pk}).json()
    assert listed["count"] == 3
    claimed = api.get(f"/api/v1/assignments/{assignment.pk}/").json()
    assert [t["id"] for t in claimed["response"]["turns"] if t["role"] == "assistant"] == [
        t.pk for t in turns
    ]


def test_the_turn_excerpt_beside_each_turn_verdict_is_plain_text(dialogue):
    assignment, grader, _, turns = dialogue
    Turn.objects.filter(pk=turns[0].pk).update(content="## Well done\n\nYou used **went** well.")
    html = _client(grader).get(reverse("grading:assignment", args=[assignment.pk])).content.decode()
    excerpts = [e.split("</p>")[0] for e in html.split('class="turn-excerpt muted">')[1:]]
    assert excerpts[0] == "Well done You used went well."
    assert not any("**" in excerpt or "#" in excerpt for excerpt in excerpts)
