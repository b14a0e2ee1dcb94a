"""A study's final labels from the database: the downloads, the command and the API."""

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.urls import reverse
from openpyxl import load_workbook
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import Role
from agreement.models import AnalysisSettings
from agreement.services import final_labels
from core.analysis.labels import COLUMNS
from grading import services
from grading.models import GoldVerdict, Study
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def graded_study(module_db: None) -> Study:
    """Three graders, two responses (the third grader fails every universal criterion the
    others pass); one universal criterion of the first response adjudicated."""
    study = factories.graded_demo_study(responses=2)
    item = study.items.order_by("pk").first()
    rubric = item.rubric_version.effective_rubric()
    line = next(line for line in rubric if line.layer == "universal")
    GoldVerdict.objects.create(
        study_item=item, criterion_version=line.version, verdict="fail", note="A1 learners",
        split_reason="criterion_unclear", confidence="low",
    )  # fmt: skip
    return study


@pytest.fixture
def study(graded_study: Study) -> Study:
    return Study.objects.get(pk=graded_study.pk)


def test_each_graded_unit_gets_its_label_and_how_it_was_reached(study):
    labels = final_labels(study)
    applicable = sum(
        sum(1 for line in item.rubric_version.effective_rubric() if line.applicable)
        for item in study.items.all()
    )
    assert len(labels) == applicable
    by_basis = {}
    for found in labels:
        by_basis.setdefault(str(found.basis), []).append(found)
    [adjudicated] = by_basis["adjudicated"]
    assert adjudicated.label == "fail" and adjudicated.unit.gold.note == "A1 learners"
    assert all(f.label == "pass" and f.n_fail == 1 for f in by_basis["majority"])
    assert all(f.unit.criterion.layer == "universal" for f in by_basis["majority"])
    assert all(f.label == "pass" and f.n_fail == 0 for f in by_basis["unanimous"])
    graders = {e.grader for f in labels for e in f.unit.experts}
    assert graders == {"Annotator 1", "Annotator 2", "Annotator 3"}


def test_graders_are_named_only_where_the_study_names_them(study):
    AnalysisSettings.objects.create(study=study, show_annotator_names=True)
    graders = {e.grader for f in final_labels(study) for e in f.unit.experts}
    assert graders == {"grader0", "grader1", "grader2"}


def test_the_downloads_carry_the_same_labels(study, client_as):
    client = client_as(Role.MAINTAINER)
    expected = [(f.unit.criterion.code, f.label or "", str(f.basis)) for f in final_labels(study)]
    text = client.get(reverse("agreement:labels_csv", args=[study.pk])).content.decode()
    header, *rows = list(csv.reader(io.StringIO(text)))
    assert header == COLUMNS
    columns = [COLUMNS.index(name) for name in ("criterion", "label", "basis")]
    assert [tuple(row[i] for i in columns) for row in rows] == expected
    workbook = client.get(reverse("agreement:labels_xlsx", args=[study.pk]))
    sheet = load_workbook(io.BytesIO(workbook.content))["Final labels"]
    assert sheet.max_row == len(expected) + 1
    document = json.loads(client.get(reverse("agreement:labels_json", args=[study.pk])).content)
    assert [(d["criterion"], d["label"] or "", d["basis"]) for d in document["labels"]] == expected
    # The adjudicated unit says why the experts split and how sure its adjudicator was.
    why = [COLUMNS.index(name) for name in ("split reason", "split reason label", "confidence")]
    reasons = {tuple(row[i] for i in why) for row in rows}
    assert reasons == {("", "", ""), ("criterion_unclear", "Criterion unclear", "low")}
    [gold] = [d["gold"] for d in document["labels"] if d["gold"]]
    assert (gold["split reason"], gold["split reason label"], gold["confidence"]) == (
        "criterion_unclear", "Criterion unclear", "low",
    )  # fmt: skip


def test_annotators_get_no_labels_on_a_page_or_in_the_api(study, client_as, make_user):
    url = reverse("agreement:labels_json", args=[study.pk])
    assert client_as(Role.ANNOTATOR).get(url).status_code == 403
    api = APIClient()
    _, key = ApiToken.issue(make_user(Role.ANNOTATOR), "tests")
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get(f"/api/v1/studies/{study.pk}/final-labels/").status_code == 403


def test_the_api_and_the_command_give_the_labels(study, make_user, tmp_path):
    api = APIClient()
    _, key = ApiToken.issue(make_user(Role.MAINTAINER), "tests")
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    answer = api.get(f"/api/v1/studies/{study.pk}/final-labels/")
    assert answer.status_code == 200
    labels = answer.json()["labels"]
    [adjudicated] = [label for label in labels if label["basis"] == "adjudicated"]
    assert adjudicated["split reason label"] == adjudicated["gold"]["split reason label"]
    assert adjudicated["gold"]["split reason label"] == "Criterion unclear"
    assert all(len(label["experts"]) == 3 for label in labels)
    output = tmp_path / "labels.json"
    call_command("final_labels", str(study.pk), format="json", output=output)
    assert json.loads(output.read_text())["labels"] == labels


def test_an_ordinal_criterions_final_labels_carry_the_levels(make_user, client_as):
    graders = [make_user(Role.ANNOTATOR) for _ in range(3)]
    task = factories.published_task(scale=(0, 4), criteria=2)
    made = services.create_study(
        name="Levels",
        framework=task.framework,
        responses=[factories.response(task) for _ in range(2)],
        annotators=graders,
        overlap=3,
        likert_prompts=(),
        require_rationale_on_fail=False,
    )
    services.assign_study(made)
    # The first response: levels 2, 2, 3 (majority 2); the second: 1, 3, N/A, adjudicated 2.
    answers = {0: (2, 2, 3), 1: (1, 3, "na")}
    items = list(made.items.order_by("pk"))
    for index, grader in enumerate(graders):
        for n, item in enumerate(items):
            assignment = item.assignments.get(annotator=grader)
            answer = answers[n][index]
            for version in factories.rubric_of(assignment):
                if version.is_ordinal:
                    scaled = version
                    services.save_grade(
                        assignment,
                        version.pk,
                        verdict="na" if answer == "na" else None,
                        level=None if answer == "na" else answer,
                        rationale="",
                        by=grader,
                    )
                else:
                    services.save_grade(
                        assignment, version.pk, verdict="fail", rationale="", by=grader
                    )
            services.submit(assignment, by=grader)
    GoldVerdict.objects.create(
        study_item=items[1], criterion_version=scaled, verdict="", level=2, note="Between"
    )
    found = {
        (f.unit.response_id, f.unit.criterion.code): f
        for f in final_labels(made)
        if f.unit.criterion.scale
    }
    first = found[(items[0].response_id, scaled.criterion.code)]
    second = found[(items[1].response_id, scaled.criterion.code)]
    assert (first.level, str(first.basis), first.label) == (2, "majority", None)
    assert sorted(e.level for e in first.unit.experts) == [2, 2, 3]
    assert (second.level, str(second.basis), second.n_not_applicable) == (2, "adjudicated", 1)
    text = client_as(Role.MAINTAINER).get(reverse("agreement:labels_csv", args=[made.pk]))
    rows = list(csv.DictReader(io.StringIO(text.content.decode())))
    scaled_rows = [row for row in rows if row["criterion"] == scaled.criterion.code]
    assert [(row["level"], row["basis"], row["gold"]) for row in scaled_rows] == [
        ("2", "majority", ""),
        ("2", "adjudicated", "2"),
    ]
    assert {row["label"] for row in rows if row["criterion"] != scaled.criterion.code} == {"fail"}


@pytest.fixture
def half_single(make_user) -> tuple[Study, int]:
    """Two graders on two responses: both submit the first, only one the second, whose labels
    therefore rest on a single expert's verdict. Returns the study and that response."""
    graders = [make_user(Role.ANNOTATOR) for _ in range(2)]
    made = factories.study(graders, responses=2, overlap=2, require_rationale_on_fail=False)
    services.assign_study(made)
    first, second = made.items.order_by("pk")
    for grader in graders:
        for item in (first, second) if grader == graders[0] else (first,):
            assignment = item.assignments.get(annotator=grader)
            factories.complete(assignment, grader, "pass")
            services.submit(assignment, by=grader)
    return made, second.response_id


def test_a_label_from_one_expert_is_single_and_each_export_can_leave_it_out(
    half_single, client_as, make_user, tmp_path
):
    made, lone = half_single
    labels = final_labels(made)
    assert {str(f.basis) for f in labels if f.unit.response_id == lone} == {"single"}
    assert {str(f.basis) for f in labels if f.unit.response_id != lone} == {"unanimous"}
    shared = [f.unit.criterion.code for f in labels if f.unit.response_id != lone]

    client = client_as(Role.MAINTAINER)
    page = client.get(reverse("agreement:study", args=[made.pk])).content.decode()
    assert 'name="without_single"' in page
    url = reverse("agreement:labels_csv", args=[made.pk])
    every = list(csv.DictReader(io.StringIO(client.get(url).content.decode())))
    assert {row["basis"] for row in every} == {"single", "unanimous"}
    download = client.get(url, {"without_single": "1"})
    assert "-without-single.csv" in download["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(download.content.decode())))
    assert [row["criterion"] for row in rows] == shared
    assert {row["response"] for row in rows} != {str(lone)}
    assert all(row["basis"] == "unanimous" for row in rows)

    output = tmp_path / "labels.json"
    call_command("final_labels", str(made.pk), format="json", output=output, without_single=True)
    written = json.loads(output.read_text())["labels"]
    assert [label["criterion"] for label in written] == shared

    api = APIClient()
    api.credentials(
        HTTP_AUTHORIZATION=f"Token {ApiToken.issue(make_user(Role.MAINTAINER), 't')[1]}"
    )
    url = f"/api/v1/studies/{made.pk}/final-labels/"
    assert api.get(url, {"without_single": "true"}).json()["labels"] == written
    assert len(api.get(url).json()["labels"]) == len(labels)
    refused = api.get(url, {"without_single": "maybe"})
    assert refused.status_code == 400 and "without_single" in refused.json()["errors"]
