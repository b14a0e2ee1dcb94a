"""The validated rubrics workbook: per criterion, each chosen study's decision as its agreement
report makes it, with alpha, its interval, n, the threshold and the study (the command, the
export page and the API)."""

from io import BytesIO

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from openpyxl import load_workbook
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from agreement.services import study_report
from grading import services as grading
from grading.models import Study, Verdict
from interchange.exporters import CRITERIA_COLUMNS, VALIDATION_COLUMNS
from rubrics.models import Response
from taxonomy.models import Framework
from tests import factories

pytestmark = pytest.mark.django_db

RESPONSES = 32  # over the 30 units a criterion needs to be validated
HEADER = [c.header for c in CRITERIA_COLUMNS + VALIDATION_COLUMNS]


@pytest.fixture(scope="module")
def world(module_db: None) -> dict[str, int]:
    """A framework with one universal criterion and 32 one-criterion tasks. "Agreeing": two
    experts give the same verdict on the universal criterion of every response (pass on one,
    fail on the next) and differ on every task criterion. "Later": on 6 of the responses they
    differ on everything. A study of another framework."""
    sync_roles()
    fw = factories.framework()
    universal = factories.universal_criterion(fw)
    tasks = [factories.published_task(fw, criteria=1) for _ in range(RESPONSES)]
    answers = [factories.response(task) for task in tasks]
    graders = [create_user_with_role(f"expert{n}", "pw", Role.ANNOTATOR) for n in range(2)]

    def graded(name: str, responses: list[Response], agree: bool) -> Study:
        study = grading.create_study(
            name=name,
            framework=fw,
            responses=responses,
            annotators=graders,
            overlap=2,
            require_rationale_on_fail=False,
            likert_prompts=(),
        )
        grading.assign_study(study)
        factories.grade_study(
            study,
            graders,
            lambda index, assignment, _, line: (
                (Verdict.PASS if assignment.study_item.response_id % 2 else Verdict.FAIL)
                if agree and line.layer == "universal"
                else (Verdict.PASS if index == 0 else Verdict.FAIL)
            ),
        )
        return study

    agreeing = graded("Agreeing", answers, agree=True)
    later = graded("Later", answers[:6], agree=False)
    elsewhere = factories.make_framework("other-fw")
    other = grading.create_study(
        name="Elsewhere",
        framework=elsewhere,
        responses=[factories.response(factories.published_task(elsewhere, criteria=1))],
        annotators=[],
    )
    return {
        "framework": fw.pk,
        "universal": universal.code,
        "agreeing": agreeing.pk,
        "later": later.pk,
        "other": other.pk,
    }


def sheets(source) -> dict[str, list[dict[str, object]]]:
    workbook = load_workbook(source, read_only=True)
    found = {}
    for name in ("Universal criteria", "Task criteria"):
        header, *rows = [list(row) for row in workbook[name].iter_rows(values_only=True)]
        assert header == HEADER
        found[name] = [dict(zip(header, row, strict=True)) for row in rows]
    return found


def test_each_criterion_carries_the_studys_decision_alpha_interval_and_n(world, tmp_path):
    agreeing = Study.objects.get(pk=world["agreeing"])
    output = tmp_path / "rubrics.xlsx"
    call_command("export_rubrics", output, validated_by=[str(agreeing.pk)])
    found = sheets(output)
    report = {c.criterion.code: c for c in study_report(agreeing).criteria}
    [universal] = found["Universal criteria"]
    decided = report[world["universal"]]
    assert universal["Code"] == world["universal"]
    assert universal["Validation"] == "validated"
    assert universal["Why"] == str(decided.verdict)
    assert universal["Alpha"] == pytest.approx(decided.agreement.alpha.estimate.value)
    assert universal["Alpha"] == pytest.approx(1.0)
    assert universal["Alpha CI low"] == pytest.approx(decided.agreement.alpha.low)
    assert universal["Alpha CI high"] == pytest.approx(decided.agreement.alpha.high)
    assert universal["Units (n)"] == RESPONSES
    assert universal["Threshold"] == pytest.approx(study_report(agreeing).threshold)
    assert (universal["Study"], universal["Study id"]) == ("Agreeing", agreeing.pk)
    tasks = found["Task criteria"]
    assert len(tasks) == RESPONSES  # one per task criterion, each graded once by two experts
    assert {row["Validation"] for row in tasks} == {"undecided"}
    assert all(row["Why"].startswith("too few units (n = 1;") for row in tasks)


def test_every_study_that_graded_a_criterion_gives_its_own_row(world, tmp_path):
    output = tmp_path / "rubrics.xlsx"
    call_command(
        "export_rubrics",
        output,
        all_studies=True,
        framework=Framework.objects.get(pk=world["framework"]).code,
    )
    found = sheets(output)
    universal = [(r["Study"], r["Validation"]) for r in found["Universal criteria"]]
    assert universal == [("Agreeing", "validated"), ("Later", "undecided")]
    tasks = found["Task criteria"]
    assert len(tasks) == RESPONSES + 6  # the six responses of "Later" graded theirs twice
    only = tmp_path / "only.xlsx"
    call_command(
        "export_rubrics",
        only,
        all_studies=True,
        only_validated=True,
        framework=Framework.objects.get(pk=world["framework"]).code,
    )
    kept = sheets(only)
    assert [r["Study"] for r in kept["Universal criteria"]] == ["Agreeing"]
    assert kept["Task criteria"] == []


def test_a_criterion_no_chosen_study_graded_says_so(world, tmp_path):
    later = Study.objects.get(pk=world["later"])
    output = tmp_path / "rubrics.xlsx"
    call_command("export_rubrics", output, validated_by=["Later"])
    tasks = sheets(output)["Task criteria"]
    not_graded = [row for row in tasks if row["Validation"] == "not graded"]
    assert len(not_graded) == RESPONSES - 6
    assert {(row["Study"], row["Units (n)"], row["Alpha"]) for row in not_graded} == {
        ("Later", 0, None)
    }
    assert not_graded[0]["Why"] == "not graded at this version in the study"
    assert later.pk == tasks[0]["Study id"]


def test_the_command_refuses_what_it_cannot_do(world, tmp_path):
    output = tmp_path / "rubrics.xlsx"
    code = Framework.objects.get(pk=world["framework"]).code
    with pytest.raises(CommandError, match="not both"):
        call_command("export_rubrics", output, validated_by=["Later"], all_studies=True)
    with pytest.raises(CommandError, match="--only-validated needs"):
        call_command("export_rubrics", output, only_validated=True, framework=code)
    other = Study.objects.get(pk=world["other"])
    with pytest.raises(CommandError, match=f"Not a study of {code}: {other.name}."):
        call_command("export_rubrics", output, validated_by=[str(other.pk)], framework=code)
    assert not output.exists()


def test_the_export_page_offers_and_writes_the_validated_rubrics(world, client_as):
    client = client_as(Role.MAINTAINER)
    framework = Framework.objects.get(pk=world["framework"])
    page = client.get(reverse("interchange:index")).content.decode()
    assert f'<option value="{world["agreeing"]}">Agreeing</option>' in page
    assert 'name="only_validated"' in page
    url = reverse("interchange:export_rubrics")
    answer = client.get(
        url, {"framework": framework.code, "validated_by": "all", "only_validated": "1"}
    )
    assert answer.status_code == 200
    assert "rubrics-validated-" in answer["Content-Disposition"]
    kept = sheets(BytesIO(b"".join(answer.streaming_content)))
    assert [r["Study"] for r in kept["Universal criteria"]] == ["Agreeing"]
    plain = client.get(url, {"framework": framework.code})
    header = next(load_workbook(BytesIO(b"".join(plain.streaming_content)))["Task criteria"].rows)
    assert [cell.value for cell in header] == [c.header for c in CRITERIA_COLUMNS]
    refused = client.get(url, {"framework": framework.code, "validated_by": world["other"]})
    assert refused.status_code == 422
    assert f"Not a study of {framework.code}" in refused.content.decode()
    unknown = client.get(url, {"framework": framework.code, "only_validated": "1"})
    assert unknown.status_code == 422
    assert "Keeping only the validated criteria needs a study, or all." in unknown.content.decode()


def test_the_api_writes_the_validated_rubrics(world, make_user):
    framework = Framework.objects.get(pk=world["framework"])
    api = APIClient()
    api.credentials(
        HTTP_AUTHORIZATION=f"Token {ApiToken.issue(make_user(Role.MAINTAINER), 't')[1]}"
    )
    url = reverse("api:framework-rubrics-xlsx", args=[framework.code])
    answer = api.get(url, {"validated_by": world["agreeing"], "only_validated": "true"})
    assert answer.status_code == 200
    kept = sheets(BytesIO(b"".join(answer.streaming_content)))
    assert [r["Validation"] for r in kept["Universal criteria"]] == ["validated"]
    refused = api.get(url, {"validated_by": "nope"})
    assert refused.status_code == 400
    assert "validated_by" in refused.json()["errors"]
    assert api.get(url, {"only_validated": "maybe"}).status_code == 400
