"""A word longer than the screen (a pasted token, a URL, a model's run-on output) wraps instead
of making the page wider than the window: the task page of an author, the grading page of an
annotator."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from rubrics import services
from rubrics.models import Response
from rubrics.models.criteria import WORDING_MAX
from taxonomy.models import SubCompetency
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)

WORD = "w" * 200_000


def page_width(page) -> tuple[int, int]:
    return page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")


@pytest.mark.parametrize("width", [1024, 360])
def test_a_task_with_long_words_stays_as_wide_as_the_window(
    new_page, log_in, starter_framework, width
):
    page = new_page(width=width)
    author = log_in(page, Role.AUTHOR)
    sub = SubCompetency.objects.get(competency__framework=starter_framework, code="02a")
    task = services.create_task(sub, "w1", "Read: " + WORD[:40_000], author)
    services.add_criterion(task, "w" * WORDING_MAX, 2, author)
    for name in ("rubrics:task_detail", "rubrics:task_criteria"):
        page.goto(reverse(name, args=[task.pk]))
        scroll, window = page_width(page)
        assert scroll <= window, f"{name}: {scroll} px wide in a {window} px window"


def test_a_response_of_one_200000_character_word_stays_as_wide_as_the_window(new_page, log_in):
    page = new_page(width=1024)
    annotator = log_in(page, Role.ANNOTATOR)
    study = factories.study([annotator], responses=1, overlap=1)
    Response.objects.filter(study_items__study=study).update(text=WORD)
    page.goto(reverse("grading:index"))
    page.get_by_role("button", name="Start grading").click()
    page.wait_for_url("**/grading/assignments/*/")
    scroll, window = page_width(page)
    assert scroll <= window, f"the grading page: {scroll} px wide in a {window} px window"
