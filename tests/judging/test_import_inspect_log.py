"""Importing `.eval` logs written by the real `inspect_ai` package (Zstandard members) through
the command and the upload page, and the older deflate logs beside them."""

import io
import json
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from accounts.roles import Role
from core.formats.zip_members import ZipMembers
from interchange.importers import import_l2bench
from interchange.models import ImportJob
from judging.models import JudgeRun, JudgeVerdict
from judging.verdict_import import import_verdicts
from rubrics.models import Response
from taxonomy.models import Framework
from tests.factories import benchmark_folder, generated, load_starter_framework
from tests.inspect_logs import JUDGE, TUTOR, LogTask, judging, write_judge_log
from tests.interchange.db_helpers import row_counts
from tests.llm_server import model_name

pytestmark = pytest.mark.django_db
RECORDS = generated(3)
WEIGHTS = {(r.task_key, c.id): c.weight for r in RECORDS for c in r.criteria}
EPOCHS = 2


def script(request):
    """The tutor answers; the judge passes every criterion of positive weight, fails the rest."""
    judged = judging(request)
    if judged is None:
        return f"A tutor's answer, for {request.body['model']}."
    return "true" if WEIGHTS[judged] > 0 else "false"


@pytest.fixture(scope="module")
def real_log(llm_server_for_session, tmp_path_factory):
    llm_server_for_session.reset()
    llm_server_for_session.default = script
    tasks = [
        LogTask(r.task_key, r.task, tuple((c.id, c.weight, c.description) for c in r.criteria))
        for r in RECORDS
    ]
    return write_judge_log(tmp_path_factory.mktemp("logs"), tasks, epochs=EPOCHS)


@pytest.fixture(scope="module")
def built_benchmark(module_db, tmp_path_factory) -> int:
    """The starter framework and the three tasks, imported once for the module's tests (each
    test's changes rolled back)."""
    framework = load_starter_framework()
    assert import_l2bench(benchmark_folder(tmp_path_factory.mktemp("bench"), RECORDS), framework).ok
    return framework.pk


@pytest.fixture
def benchmark(built_benchmark, db) -> Framework:
    return Framework.objects.get(pk=built_benchmark)


def deflate_copy(source, target, change=lambda name, member: member):
    """The log rewritten the way Inspect wrote it before Zstandard: deflate members."""
    with ZipMembers(source) as old, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as new:
        for name in old.namelist():
            member = json.loads(old.read(name))
            new.writestr(name, json.dumps(change(name, member)))
    return target


def stored_verdicts():
    verdicts = JudgeVerdict.objects.select_related("response__task", "criterion_version__criterion")
    return {
        (v.response.task.key, v.criterion_version.criterion.code, v.epoch): v.verdict
        for v in verdicts
    }


EXPECTED = {(task, cid, e): w > 0 for (task, cid), w in WEIGHTS.items() for e in (1, 2)}


def test_the_command_imports_a_log_written_by_inspect(benchmark, real_log):
    out, err = io.StringIO(), io.StringIO()
    call_command("import_verdicts", str(real_log), stdout=out, stderr=err)
    assert stored_verdicts() == EXPECTED
    (run,) = JudgeRun.objects.all()
    assert (run.judge_model, run.prompt_version) == (model_name(JUDGE), "v1")
    responses = Response.objects.filter(model_name=model_name(TUTOR))
    assert responses.count() == len(RECORDS) * EPOCHS
    assert set(responses.values_list("text", flat=True)) == {"A tutor's answer, for tutor-1."}
    assert f"verdicts: {len(EXPECTED)} created" in out.getvalue()


def test_importing_the_same_log_again_changes_nothing(benchmark, real_log):
    assert import_verdicts(real_log, benchmark).ok
    before = row_counts()
    report = import_verdicts(real_log, benchmark)
    assert report.counts["verdicts"].unchanged == len(EXPECTED)
    assert row_counts() == before


def test_a_deflate_log_imports_exactly_as_its_zstandard_twin(benchmark, real_log, tmp_path):
    old = deflate_copy(real_log, tmp_path / "old.eval")
    assert {i.compress_type for i in zipfile.ZipFile(old).infolist()} == {zipfile.ZIP_DEFLATED}
    report = import_verdicts(old, benchmark)
    assert report.ok, report.problem_lines()
    assert stored_verdicts() == EXPECTED
    assert import_verdicts(real_log, benchmark).counts["verdicts"].unchanged == len(EXPECTED)


def test_a_refused_log_names_file_sample_and_field_and_writes_nothing(
    benchmark, real_log, tmp_path
):
    def unsure(name, member):
        if name == f"samples/{RECORDS[1].task_key}_epoch_2.json":
            member["scores"]["l2_scorer"]["metadata"]["scoring_results"][0]["judgement"] = "hm"
        return member

    path = deflate_copy(real_log, tmp_path / "unsure.eval", unsure)
    before, err = row_counts(), io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_verdicts", str(path), stdout=io.StringIO(), stderr=err)
    assert (
        f"unsure.eval: samples/{RECORDS[1].task_key}_epoch_2.json: field "
        "'scores.l2_scorer.metadata.scoring_results[0].judgement': 'hm' is not true or false"
    ) in err.getvalue()
    assert row_counts() == before


def test_a_maintainer_uploads_a_log_written_by_inspect(
    benchmark, real_log, client_as, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    settings.IMPORTS_ROOT = tmp_path / "imports"
    client = client_as(Role.MAINTAINER)
    upload = SimpleUploadedFile("judge-run.eval", real_log.read_bytes())
    data = {"kind": "eval_log", "framework": benchmark.pk, "file": upload}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("interchange:index"), data)
    job = ImportJob.objects.get()
    assert response.status_code == 302, response.content.decode()[:2000]
    assert job.status == "succeeded", job.problems
    assert stored_verdicts() == EXPECTED
    page = client.get(response.url).content.decode()
    assert f"verdicts: {len(EXPECTED)} created" in page


@pytest.fixture(scope="module")
def dialogue_log(llm_server_for_session, tmp_path_factory):
    """One task, one epoch, as a dialogue: the tutor answers, then a learner asks twice more."""
    llm_server_for_session.reset()
    llm_server_for_session.default = script
    record = RECORDS[0]
    tasks = [
        LogTask(
            record.task_key,
            record.task,
            tuple((c.id, c.weight, c.description) for c in record.criteria),
        )
    ]
    learner = ["Can you give me an example?", "And one more, please."]
    return write_judge_log(tmp_path_factory.mktemp("dialogue"), tasks, learner=learner)


def test_a_multi_turn_sample_imports_as_a_dialogue_of_its_messages(benchmark, dialogue_log):
    report = import_verdicts(dialogue_log, benchmark)
    assert report.ok, report.problem_lines()
    response = Response.objects.get(model_name=model_name(TUTOR))
    assert (response.kind, response.text) == ("conversation", "")
    turns = list(response.turns.values_list("role", "content"))
    assert [role for role, _ in turns] == ["user", "assistant"] * 3
    assert turns[0][1] == RECORDS[0].task
    assert turns[2][1] == "Can you give me an example?"
    assert turns[5][1] == "A tutor's answer, for tutor-1."
    assert import_verdicts(dialogue_log, benchmark).counts["responses"].unchanged == 1
