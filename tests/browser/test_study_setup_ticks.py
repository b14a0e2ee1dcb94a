"""A maintainer builds a study from tasks ticked on several pages of the setup form, changing
fields and filters between the ticks: the ticks, the page shown and the scope survive every
refresh, and the study holds exactly the responses the preview counted."""

import re

import pytest
from django.urls import reverse

from accounts.roles import Role
from grading.models import Study
from rubrics.models import Response
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


def tick(page, row: int) -> str:
    """Ticks the task on `row` (from 0) of the page shown; its key."""
    label = page.locator("#matching-tasks tbody tr").nth(row).locator("label")
    key = label.inner_text()
    page.get_by_label(key, exact=True).check()
    return key


def test_tasks_ticked_on_several_pages_make_the_study(new_page, log_in, make_user):
    fw = factories.framework()
    for n in range(60):
        task = factories.published_task(fw, criteria=1, language="es" if n < 55 else "en")
        factories.response(task, model="model-a")
        factories.response(task, model="model-b")
    grader = make_user(Role.ANNOTATOR, "grader0")
    page = new_page()
    log_in(page, Role.MAINTAINER)

    page.goto(reverse("grading:study_create"))
    page.get_by_text("60 tasks match, with 120 responses.").wait_for()
    # The scope first, before any tick: it stays as chosen.
    page.get_by_label("Only the tasks ticked (0)").check()
    page.get_by_label("Name:", exact=True).fill("Ticked pilot")
    page.get_by_label(grader.username, exact=True).check()
    page.get_by_label("Language").select_option("Spanish")
    page.get_by_text("55 tasks match, with 110 responses.").wait_for()
    assert page.get_by_label("Only the tasks ticked (0)").is_checked()

    ticked = [tick(page, 0), tick(page, 3)]
    page.get_by_text("Only the tasks ticked (2)").wait_for()
    page.get_by_role("button", name="Next").click()
    page.get_by_text("Page 2 of 3").wait_for()
    ticked += [tick(page, row) for row in (1, 2, 4)]  # one after the other, without waiting
    page.get_by_text("Only the tasks ticked (5)").wait_for()
    page.get_by_text("Page 2 of 3").wait_for()
    page.get_by_label("Graders per response (k)").fill("1")
    page.get_by_label("Description").click()  # a change of a field of the study
    page.get_by_role("button", name="Next").click()
    page.get_by_text("Page 3 of 3").wait_for()
    ticked.append(tick(page, 0))
    page.get_by_label("Model:", exact=True).select_option("model-a")
    page.get_by_text("55 tasks match, with 55 responses.").wait_for()
    page.get_by_text("Only the tasks ticked (6)").wait_for()
    assert page.get_by_label("Only the tasks ticked (6)").is_checked()
    units = page.locator("#preview-units")
    assert re.match(r"6 responses to grade", units.inner_text()), units.inner_text()

    page.get_by_role("button", name="Create study").click()
    page.get_by_role("heading", name="Ticked pilot").wait_for()
    study = Study.objects.get(name="Ticked pilot")
    held = set(study.items.values_list("response", flat=True))
    expected = Response.objects.filter(task__key__in=ticked, model_name="model-a")
    assert held == set(expected.values_list("pk", flat=True))
    assert len(held) == 6
    assert page.csp_errors == []
