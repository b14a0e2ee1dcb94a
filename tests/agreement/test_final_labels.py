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
from agreement.analysis.labels import COLUMNS
from agreement.models import AnalysisSettings
from agreement.services import final_labels
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
        study_item=item, criterion_version=line.version, verdict="fail", note="A1 learners"
    )
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
    assert sum(1 for label in labels if label["basis"] == "adjudicated") == 1
    assert all(len(label["experts"]) == 3 for label in labels)
    output = tmp_path / "labels.json"
    call_command("final_labels", str(study.pk), format="json", output=output)
    assert json.loads(output.read_text())["labels"] == labels
