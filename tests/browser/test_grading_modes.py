"""Grading without surprises: after Fail the keys stay shortcuts and writing a rationale is a
mode the page shows; on a phone the bar at the foot stays one row and covers no rationale."""

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from accounts.roles import Role
from grading.models import Assignment, Grade
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


def start_grading(page) -> Assignment:
    page.goto(reverse("grading:index"))
    page.get_by_role("button", name="Start grading").click()
    page.wait_for_url("**/grading/assignments/*/")
    return Assignment.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))


def test_after_fail_the_next_keys_are_shortcuts_and_writing_is_shown(new_page, log_in):
    page = new_page(width=1280)
    grader = log_in(page, Role.ANNOTATOR)
    factories.study([grader], responses=1, overlap=1, likert_prompts=())
    mine = start_grading(page)
    first, second, _ = factories.rubric_of(mine)
    first_line, box = page.locator(f"#criterion-{first.pk}"), page.locator(f"#rationale-{first.pk}")

    page.keyboard.press("f")  # Fail needs a reason: the marker stays, the box is not entered
    first_line.locator(".save-state.saved").wait_for()
    expect(first_line).to_be_focused()
    expect(first_line.locator(".warning")).to_contain_text("Press r to write it")
    page.keyboard.press("j")  # a shortcut still: the next criterion, nothing typed anywhere
    expect(page.locator(f"#criterion-{second.pk}")).to_have_class("criterion current")
    page.keyboard.press("k")
    expect(first_line).to_have_class("criterion answered verdict-is-fail current")
    assert box.input_value() == ""

    page.keyboard.press("r")  # into the box: the page says the keys are text now
    expect(box).to_be_focused()
    mode = page.locator("#typing-mode")
    expect(mode).to_be_visible()
    expect(mode).to_contain_text("Esc leaves the box")
    expect(first_line).to_have_class("criterion answered verdict-is-fail current writing")
    page.keyboard.type("Too hard for A2 learners.")
    page.keyboard.press("Escape")  # out again: the mode ends, the rationale is saved
    expect(mode).to_have_count(0)
    page.locator(f"#criterion-{first.pk}:not(.writing) .save-state.saved").wait_for()
    page.keyboard.press("j")
    expect(page.locator(f"#criterion-{second.pk}")).to_have_class("criterion current")
    page.keyboard.press("p")
    page.locator(f"#criterion-{second.pk} .save-state.saved").wait_for()
    grades = dict(
        Grade.objects.filter(assignment=mine).values_list("criterion_version", "rationale")
    )
    assert grades == {first.pk: "Too hard for A2 learners.", second.pk: ""}
    assert page.csp_errors == []


def test_on_a_phone_a_sent_flag_leaves_the_bar_one_row_and_the_rationale_in_view(new_page, log_in):
    page = new_page(width=375)
    page.set_viewport_size({"width": 375, "height": 667})
    grader = log_in(page, Role.ANNOTATOR)
    factories.study([grader], responses=1, overlap=1, likert_prompts=())
    mine = start_grading(page)
    first = factories.rubric_of(mine)[0]

    page.get_by_role("link", name="Flag or set aside").click()
    dialog = page.locator("#flag-dialog")
    dialog.get_by_role("radio", name="Response broken").check()
    dialog.get_by_label("Comment").fill("The answer stops mid-sentence. " * 6)
    dialog.get_by_role("button", name="Send the flag").click()
    dialog.wait_for(state="hidden")
    page.locator("#my-flags").get_by_text("The answer stops").wait_for()

    bar = page.locator("#submit-bar")
    bar_box = bar.bounding_box()
    assert bar_box["height"] <= 667 * 0.12, bar_box  # one row of buttons, flags or not
    assert bar.locator("#my-flags").count() == 0

    line = page.locator(f"#criterion-{first.pk}")
    line.get_by_role("button", name="Fail").click()
    line.locator(".save-state.saved").wait_for()
    box = page.locator(f"#rationale-{first.pk}")
    box.click()
    page.keyboard.type("Too long for the learner's level.")
    bar_box = bar.bounding_box()
    bar_top = bar_box["y"]
    assert 667 - 2 <= bar_top + bar_box["height"] <= 667  # still at the foot of the screen
    field = box.bounding_box()
    assert field["y"] + field["height"] <= bar_top, (field, bar_top)
    expect(page.locator("#typing-mode")).to_be_visible()
    assert page.locator("#typing-mode").bounding_box()["y"] < bar_top
    assert page.csp_errors == []
