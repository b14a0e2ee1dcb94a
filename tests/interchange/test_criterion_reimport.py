"""A benchmark import that changes an existing criterion goes through the edit path the app
uses: the published version stays as it was, the change is the next draft version waiting for
review, guidance written for the old wording is cleared and marked as needed, and the report,
the job page, the dry run and the command list every changed criterion before and after."""

import dataclasses
import io
import zipfile
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from accounts.roles import Role
from core.formats.l2bench_csv import TASKS_FILE
from core.formats.synthetic import write_benchmark
from interchange.importers import import_l2bench
from interchange.importers.report import ChangedCriterion
from interchange.models import ImportJob
from rubrics import publishing, services
from rubrics.models import Criterion, RubricVersion, Task
from tests.factories import benchmark_folder, generated
from tests.interchange.db_helpers import row_counts

pytestmark = pytest.mark.django_db

GUIDANCE = {"passes": "Names the learners' age group.", "pass_example": "For 12-year-olds, ..."}
PENALTY = "Assumes the learners are adults."


def rewritten(tasks, code, description, weight):
    """The tasks with universal criterion `code` reading `description` at `weight`."""
    return [
        dataclasses.replace(
            task,
            universal_criteria=tuple(
                dataclasses.replace(c, description=description, weight=weight)
                if c.id == code
                else c
                for c in task.universal_criteria
            ),
        )
        for task in tasks
    ]


def write(folder, tasks):
    (folder / TASKS_FILE).unlink(missing_ok=True)
    write_benchmark(folder, tasks)
    return folder


@pytest.fixture
def benchmark(tmp_path, starter_framework):
    """An imported benchmark whose first universal criterion got its guidance in the app,
    published by a review: its version 2 is frozen, with guidance."""
    tasks = generated(4)
    import_l2bench(benchmark_folder(tmp_path, tasks), starter_framework)
    code = tasks[0].universal_criteria[0].id
    criterion = Criterion.objects.get(code=code)
    services.edit_criterion(criterion, GUIDANCE, criterion.revision, None)
    published = list(Task.objects.filter(status=Task.Status.PUBLISHED))
    publishing.publish(published, None)
    return tasks, code


def as_penalty(tmp_path, benchmark):
    tasks, code = benchmark
    return write(tmp_path, rewritten(tasks, code, PENALTY, -5))


def test_a_universal_criterion_become_a_penalty_is_a_draft_version_with_its_guidance_cleared(
    tmp_path, starter_framework, benchmark
):
    tasks, code = benchmark
    criterion = Criterion.objects.get(code=code)
    before = criterion.versions.get(number=2)
    old = (before.wording, before.weight)
    rubrics_before = RubricVersion.objects.count()
    statuses = dict(Task.objects.values_list("key", "status"))

    report = import_l2bench(as_penalty(tmp_path, benchmark), starter_framework)

    assert report.ok, report.problem_lines()
    versions = list(criterion.versions.order_by("number"))
    assert [(v.number, v.frozen) for v in versions] == [(1, True), (2, True), (3, False)]
    published = versions[1]
    assert (published.wording, published.weight, published.passes) == (*old, GUIDANCE["passes"])
    assert published.pass_example == GUIDANCE["pass_example"] and not published.needs_guidance
    draft = versions[2]
    assert (draft.wording, draft.weight, draft.needs_guidance) == (PENALTY, -5, True)
    assert (draft.passes, draft.fails, draft.pass_example, draft.fail_example) == ("",) * 4
    # Waiting for review: nothing was published, no task changed its state.
    assert RubricVersion.objects.count() == rubrics_before
    assert dict(Task.objects.values_list("key", "status")) == statuses
    assert report.changed_criteria == [
        ChangedCriterion(
            code=code,
            layer="universal",
            previous_version=2,
            version=3,
            new_version=True,
            wording=(old[0], PENALTY),
            weight=(old[1], -5),
            guidance="cleared",
        )
    ]
    held = sum(1 for t in tasks if t.is_published)
    assert any(f"{held} tasks the file marks published were left" in n for n in report.notes)


def test_an_unchanged_reimport_changes_and_lists_nothing(tmp_path, starter_framework, benchmark):
    tasks, _ = benchmark
    folder = write(tmp_path, tasks)
    before = row_counts()
    report = import_l2bench(folder, starter_framework)
    assert report.ok and report.changed_criteria == [] and report.notes == []
    assert row_counts() == before


def test_a_dry_run_lists_the_change_and_writes_nothing(tmp_path, starter_framework, benchmark):
    _, code = benchmark
    folder = as_penalty(tmp_path, benchmark)
    before = row_counts()
    dry = import_l2bench(folder, starter_framework, dry_run=True)
    assert row_counts() == before
    assert [(c.code, c.version, c.weight, c.guidance) for c in dry.changed_criteria] == [
        (code, 3, (dry.changed_criteria[0].weight[0], -5), "cleared")
    ]
    real = import_l2bench(folder, starter_framework)
    assert dry.changed_criteria == real.changed_criteria


def test_the_same_weight_sign_keeps_the_guidance(tmp_path, starter_framework, benchmark):
    tasks, code = benchmark
    version = Criterion.objects.get(code=code).versions.get(number=2)
    folder = write(tmp_path, rewritten(tasks, code, version.wording, version.weight + 1))
    report = import_l2bench(folder, starter_framework)
    (changed,) = report.changed_criteria
    assert changed.guidance == "kept"
    draft = Criterion.objects.get(code=code).versions.get(number=3)
    assert (draft.passes, draft.needs_guidance) == (GUIDANCE["passes"], False)


def test_the_command_lists_each_changed_criterion_before_and_after(
    tmp_path, starter_framework, benchmark
):
    _, code = benchmark
    old = Criterion.objects.get(code=code).versions.get(number=2)
    folder = as_penalty(tmp_path, benchmark)
    out = StringIO()
    call_command("import_l2bench", str(folder), "--dry-run", stdout=out, verbosity=0)
    call_command("import_l2bench", str(folder), stdout=out, verbosity=0)
    lines = out.getvalue().splitlines()
    cleared = "cleared: written for the wording before, to be written again"
    assert (
        f"  universal criterion {code} would get draft version 3, for review (version 2 stays "
        f"as it is): “{old.wording}” ({old.weight}) → “{PENALTY}” (-5); guidance: {cleared}"
    ) in lines
    assert (
        f"  universal criterion {code} got draft version 3, for review (version 2 stays as it "
        f"was): “{old.wording}” ({old.weight}) → “{PENALTY}” (-5); guidance: {cleared}"
    ) in lines


def zipped(folder) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in folder.rglob("*"):
            archive.write(path, "bench/" + path.relative_to(folder).as_posix())
    return buffer.getvalue()


@pytest.mark.parametrize("dry_run", [False, True])
def test_the_job_page_lists_the_changed_criterion_with_its_text_escaped(
    tmp_path,
    starter_framework,
    benchmark,
    settings,
    client_as,
    dry_run,
    django_capture_on_commit_callbacks,
):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    settings.IMPORTS_ROOT = tmp_path / "imports"
    tasks, code = benchmark
    hostile = "<script>alert(1)</script> & <b>adults</b>"
    folder = write(tmp_path / "b", rewritten(tasks, code, hostile, -5))
    client = client_as(Role.MAINTAINER)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(
            reverse("interchange:index"),
            {
                "kind": "benchmark",
                "framework": starter_framework.pk,
                "file": SimpleUploadedFile("bench.zip", zipped(folder)),
                **({"dry_run": "on"} if dry_run else {}),
            },
        )
    job = ImportJob.objects.get()
    assert job.status == "succeeded", job.problems
    (listed,) = job.changed_criteria
    assert (listed["code"], listed["version"], listed["wording"][1]) == (code, 3, hostile)
    html = client.get(reverse("interchange:job", args=[job.pk])).content.decode()
    title = "Criteria the import would change" if dry_run else "Criteria the import changed"
    assert title in html
    assert f"<td><code>{code}</code></td><td>Universal</td><td>2 → 3 (draft)</td>" in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &lt;b&gt;adults&lt;/b&gt;" in html
    assert "<script>alert(1)" not in html
    assert "cleared: written for the wording before, to be written again" in html
    assert Criterion.objects.get(code=code).versions.count() == (2 if dry_run else 3)
