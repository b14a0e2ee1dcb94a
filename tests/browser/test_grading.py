"""What an annotator does in the browser: grade a whole response from the keyboard."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from grading.models import Assignment, Grade
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


def start_grading(page, study) -> Assignment:  # type: ignore[no-untyped-def]
    page.goto(reverse("grading:index"))
    page.get_by_role("button", name="Start grading").click()
    page.wait_for_url("**/grading/assignments/*/")
    return Assignment.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))


def saved(page, element_id: str) -> None:  # type: ignore[no-untyped-def]
    page.locator(f"#{element_id} [role=status]").wait_for()


def test_annotator_grades_a_response_with_the_keyboard_and_gets_the_next(new_page, log_in):
    first_page, second_page = new_page(), new_page(width=360)
    first = log_in(first_page, Role.ANNOTATOR)
    second = log_in(second_page, Role.ANNOTATOR)
    study = factories.study([first, second], responses=3, overlap=1)  # claimed as they go

    mine = start_grading(first_page, study)
    theirs = start_grading(second_page, study)
    assert theirs.study_item_id != mine.study_item_id

    page = first_page
    criteria = factories.rubric_of(mine)
    likert = list(study.likert_items.all())
    page.keyboard.press("?")
    assert page.locator("#keyboard-help").is_visible()
    page.keyboard.press("Escape")
    assert not page.locator("#keyboard-help").is_visible()

    for version in criteria[:-1]:
        page.keyboard.press("p")
        saved(page, f"criterion-{version.pk}")
    last = f"criterion-{criteria[-1].pk}"
    page.keyboard.press("f")  # an empty rationale on Fail: the focus goes to it
    saved(page, last)
    page.wait_for_function(f"document.activeElement.id === 'rationale-{criteria[-1].pk}'")
    page.keyboard.type("Asks learners to use a projector the class does not have.")
    page.keyboard.press("Escape")
    page.wait_for_function("id => !document.querySelector('#' + id + ' .warning')", arg=last)
    page.keyboard.press("j")
    for item in likert:
        page.keyboard.press("4")
        saved(page, f"likert-{item.pk}")

    page.keyboard.press("s")
    page.wait_for_url(lambda url: f"/assignments/{mine.pk}/" not in url)
    following = Assignment.objects.get(annotator=first, status=Assignment.Status.IN_PROGRESS)
    assert page.url.endswith(reverse("grading:assignment", args=[following.pk]))
    assert following.study_item_id not in {mine.study_item_id, theirs.study_item_id}

    mine.refresh_from_db()
    assert mine.status == Assignment.Status.SUBMITTED
    verdicts = dict(
        Grade.objects.filter(assignment=mine).values_list("criterion_version", "verdict")
    )
    assert verdicts == {v.pk: "pass" for v in criteria[:-1]} | {criteria[-1].pk: "fail"}
    assert Grade.objects.get(assignment=mine, criterion_version=criteria[-1]).rationale.startswith(
        "Asks learners"
    )
    assert page.csp_errors == []
