"""An import with no dead end, in the browser: a dry run of a benchmark naming sub-competencies
the framework lacks is refused; the job page imports the same file again creating them, then
for real, then links the taxonomy where they are named. Nothing is uploaded twice."""

import zipfile
from dataclasses import replace

import pytest
from django.urls import reverse

from accounts.roles import Role
from core.formats.synthetic import synthetic_tasks
from interchange.models import ImportJob
from rubrics.models import Task
from taxonomy.models import SubCompetency
from tests.factories import benchmark_folder

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_refused_dry_run_goes_on_to_an_import_and_the_taxonomy_without_uploading_again(
    new_page, log_in, settings, tmp_path, starter_framework
):
    settings.TASKS = {"default": {"BACKEND": "django.tasks.backends.immediate.ImmediateBackend"}}
    settings.IMPORTS_ROOT = tmp_path / "imports"
    tasks = [replace(t, consensus_criteria=()) for t in synthetic_tasks(3, ["02a", "02x"])]
    folder = benchmark_folder(tmp_path / "b", tasks)
    archive = tmp_path / "bench.zip"
    with zipfile.ZipFile(archive, "w") as out:
        for path in folder.rglob("*"):
            out.write(path, "bench/" + path.relative_to(folder).as_posix())
    page = new_page(width=1280)
    log_in(page, Role.MAINTAINER)

    page.goto(reverse("interchange:index"))
    page.get_by_label("Kind").select_option("benchmark")
    page.get_by_label("File").set_input_files(str(archive))
    page.get_by_label("Dry run: check and count, write nothing").check()
    page.get_by_role("button", name="Upload and import").click()
    again = page.get_by_role("button", name="Import again, creating the missing sub-competencies")
    again.wait_for()
    assert "--create-missing" not in page.locator("main").inner_text()
    again.click()
    page.get_by_role("button", name="Import it now").click()  # the dry run went through
    page.get_by_role("link", name="Name the new sub-competency in the taxonomy").click()
    placeholder = SubCompetency.objects.get(code="02x", placeholder=True)
    competencies = reverse("taxonomy:competencies", args=[starter_framework.code])
    page.wait_for_url(f"**{competencies}#sub-{placeholder.pk}")
    page.locator(f"#sub-{placeholder.pk} .text").get_by_text("placeholder: to be named").wait_for()

    jobs = list(ImportJob.objects.order_by("pk").values_list("status", "dry_run", "create_missing"))
    assert jobs == [("refused", True, False), ("succeeded", True, True), ("succeeded", False, True)]
    assert Task.objects.count() == 3
    page.goto(reverse("home"))  # the refusal was mended: not left as a failure to look at
    assert "bench.zip" not in page.locator("main").inner_text()
    assert page.csp_errors == []
