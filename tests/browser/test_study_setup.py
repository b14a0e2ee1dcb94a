"""A maintainer sets up a study from the pages alone: filters the published tasks, selects all
that match, reads the preview of the load, creates the study, then adds an annotator."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from grading.models import Assignment, Study
from judging.models import JudgeRun, JudgeVerdict
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_study_is_set_up_from_the_pages(new_page, log_in, make_user):
    fw = factories.framework()
    for n in range(30):
        task = factories.published_task(fw, criteria=1, language="es" if n < 4 else "en")
        factories.response(task, model="model-a")
    graders = [make_user(Role.ANNOTATOR, f"grader{n}") for n in range(3)]
    page = new_page()
    log_in(page, Role.MAINTAINER)

    page.goto(reverse("grading:studies"))
    page.get_by_role("link", name="New study").click()
    page.get_by_text("30 tasks match, with 30 responses.").wait_for()
    assert page.locator("#matching-tasks tbody tr").count() == 25

    page.get_by_label("Name:", exact=True).fill("Spanish pilot")
    page.get_by_label("Graders per response (k)").fill("2")
    page.get_by_label("Language").select_option("Spanish")
    page.get_by_text("4 tasks match, with 4 responses.").wait_for()
    page.get_by_label("Select all 4 tasks that match").check()
    preview = page.locator("#preview")
    for n, grader in enumerate(graders, start=1):
        page.get_by_label(grader.username, exact=True).check()
        preview.get_by_text(f"for {n} annotator").wait_for()
    assert preview.locator("#preview-units").inner_text() == (
        "4 responses to grade, 2 graders each: 8 assignments for 3 annotators."
    )
    loads = preview.locator("#preview-loads tbody td:nth-child(2)").all_inner_texts()
    assert sorted(loads) == ["2", "3", "3"]

    page.get_by_role("button", name="Create study").click()
    page.get_by_role("heading", name="Spanish pilot").wait_for()
    study = Study.objects.get(name="Spanish pilot")
    assert study.items.count() == 4
    assert Assignment.objects.filter(study_item__study=study).count() == 8

    newcomer = make_user(Role.ANNOTATOR, "newcomer")
    page.get_by_role("link", name="Pool and settings").click()
    page.get_by_label("newcomer").check()
    page.get_by_role("button", name="Add to the pool").click()
    page.get_by_text("newcomer added").wait_for()
    assert page.locator("#pool").get_by_role("cell", name="newcomer", exact=True).count() == 1
    assert Assignment.objects.filter(study_item__study=study, annotator=newcomer).exists()
    assert page.csp_errors == []


def test_a_sampled_study_s_preview_counts_the_expected_draw(new_page, log_in, make_user):
    fw = factories.framework()
    run = JudgeRun.objects.create(judge_model="judge-p", run_id="stated")
    for n in range(10):
        task = factories.published_task(fw, criteria=1)
        version = task.effective_rubric()[0].version
        for model in ("model-a", "model-b"):
            response = factories.response(task, model=model)
            JudgeVerdict.objects.create(
                run=run,
                response=response,
                criterion_version=version,
                verdict=True,
                pass_probability=0.6 if n % 2 else 0.99,
            )
    grader = make_user(Role.ANNOTATOR, "grader0")
    page = new_page()
    log_in(page, Role.MAINTAINER)

    page.goto(reverse("grading:study_create"))
    page.get_by_text("10 tasks match, with 20 responses.").wait_for()
    page.get_by_label("Name:", exact=True).fill("Sampled pilot")
    page.get_by_label("Graders per response (k)").fill("1")
    page.get_by_label(grader.username, exact=True).check()
    preview = page.locator("#preview")
    preview.get_by_text("for 1 annotator").wait_for()
    page.get_by_label("Sample for the judge's scores").select_option(str(run.pk))
    page.get_by_label("Expert grades per model").fill("4")
    page.get_by_label("Expert grades per model").blur()
    preview.locator("#preview-drawn").wait_for()
    assert "about 8 of the 20 responses selected" in preview.locator("#preview-drawn").inner_text()
    rows = preview.locator("#preview-models tbody tr").all_inner_texts()
    assert [row.split() for row in rows] == [["model-a", "10", "4"], ["model-b", "10", "4"]]
    assert preview.locator("#preview-units").inner_text().startswith("8 responses to grade")
    assert preview.locator("#preview-loads tbody td:nth-child(2)").all_inner_texts() == ["8"]

    page.get_by_role("button", name="Create study").click()
    page.get_by_role("heading", name="Sampled pilot").wait_for()
    study = Study.objects.get(name="Sampled pilot")
    assert 0 < study.items.count() <= 20
    assert page.csp_errors == []
