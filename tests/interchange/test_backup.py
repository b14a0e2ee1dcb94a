"""backup_study and restore_study: a study, flushed away and restored, gives the same agreement."""

import json

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import CommandError

from accounts.models import User
from accounts.roles import Role
from accounts.services import role_of
from agreement.models import AnalysisSettings
from agreement.services import study_report
from grading import services as grading
from grading.models import GoldVerdict, Grade, Study, Verdict
from judging.models import JudgeRun, JudgeVerdict
from rubrics.demo import seed_demo_benchmark
from rubrics.models import Response

# The restore runs in its own transactions and the test flushes the database between them.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def study(starter_framework, make_user):
    seed_demo_benchmark(starter_framework, make_user(Role.AUTHOR), make_user(Role.MAINTAINER))
    graders = [make_user(Role.ANNOTATOR) for _ in range(3)]
    study = grading.create_study(
        name="Pilot",
        framework=starter_framework,
        responses=list(Response.objects.order_by("pk")[:3]),
        annotators=graders,
        overlap=3,
        seed=1,
        require_rationale_on_fail=False,
        likert_prompts=["Is this task authentic?"],
    )
    grading.assign_study(study)
    for index, grader in enumerate(graders):
        while (assignment := grading.claim_next(study, grader)) is not None:
            for n, line in enumerate(assignment.study_item.rubric_version.effective_rubric()):
                if line.applicable:
                    verdict = Verdict.FAIL if (n + index) % 3 == 0 else Verdict.PASS
                    grading.save_grade(
                        assignment, line.version.pk, verdict=verdict, rationale="", by=grader
                    )
            for item in study.likert_items.all():
                grading.save_likert(assignment, item.pk, 2 + index, by=grader)
            grading.submit(assignment)
    item = study.items.order_by("pk").first()
    line = item.rubric_version.effective_rubric()[0]
    GoldVerdict.objects.create(study_item=item, criterion_version=line.version, verdict="pass")
    run = JudgeRun.objects.create(judge_model="always-pass", prompt_version="v1")
    JudgeVerdict.objects.create(
        run=run, response=item.response, criterion_version=line.version, epoch=1, verdict=True
    )
    AnalysisSettings.objects.create(study=study, resamples=200, seed=7)
    return study


def figures(report):
    """Overall and per-criterion alpha with their bootstrap intervals, the raters, the scales."""
    criteria = [(c.criterion.key, c.agreement, c.validated) for c in report.criteria]
    return report.overall, criteria, report.by_layer, report.raters, report.scales


def test_a_restored_study_gives_identical_agreement_figures(study, tmp_path):
    before = figures(study_report(study))
    grades = Grade.objects.count()
    path = tmp_path / "pilot.json"
    call_command("backup_study", str(study.pk), output=path)
    document = json.loads(path.read_text())
    users = [o for o in document["objects"] if o["model"] == "accounts.user"]
    assert users and all(u["fields"]["password"] == "" for u in users)

    call_command("flush", interactive=False)
    cache.clear()
    assert not Study.objects.exists()
    call_command("restore_study", str(path))

    restored = Study.objects.get(pk=study.pk)
    assert figures(study_report(restored)) == before
    assert Grade.objects.count() == grades
    assert GoldVerdict.objects.count() == JudgeVerdict.objects.count() == 1
    annotator = User.objects.get(pk=restored.pool.first().annotator_id)
    assert not annotator.has_usable_password()
    assert role_of(annotator) == Role.ANNOTATOR
    Study.objects.create(name="After", framework=restored.framework)  # sequences moved on


def test_restore_refuses_a_database_that_is_not_empty(study, tmp_path):
    path = tmp_path / "pilot.json"
    call_command("backup_study", str(study.pk), output=path)
    with pytest.raises(CommandError, match="not empty"):
        call_command("restore_study", str(path))
    assert Study.objects.count() == 1


def test_restore_is_all_or_nothing(study, tmp_path):
    path = tmp_path / "pilot.json"
    call_command("backup_study", str(study.pk), output=path)
    document = json.loads(path.read_text())
    grade = next(o for o in document["objects"] if o["model"] == "grading.grade")
    grade["fields"]["assignment"] = 10**9  # points nowhere
    path.write_text(json.dumps(document))
    call_command("flush", interactive=False)
    with pytest.raises(Exception):  # noqa: B017 - the database's own integrity error
        call_command("restore_study", str(path))
    assert not Study.objects.exists() and not User.objects.exists()


def test_restore_refuses_a_file_that_is_not_a_backup(db, tmp_path):
    path = tmp_path / "other.json"
    path.write_text('{"objects": []}')
    with pytest.raises(CommandError, match="Not a study backup"):
        call_command("restore_study", str(path))
