"""Adjudicating from the keyboard, with the teaching context the graders saw in view."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from grading import adjudication
from grading.models import GoldVerdict
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_maintainer_adjudicates_with_the_keyboard_and_sees_the_context(new_page, log_in):
    study = factories.graded_demo_study(responses=1)
    first, second = list(adjudication.disagreements(study))[:2]
    page = new_page()
    log_in(page, Role.MAINTAINER)

    page.goto(reverse("grading:adjudicate", args=[study.pk, first["item"], first["version"]]))
    task = page.get_by_role("region", name="The task")
    assert task.locator("dt", has_text="CEFR level").locator("+ dd").inner_text() == "B1"
    assert task.locator("dt", has_text="Learner age").is_visible()
    gold = page.get_by_role("region", name="Gold verdict")
    assert gold.locator("label.choice kbd.key").all_inner_texts() == ["p", "f", "n"]
    assert gold.get_by_label("Fail").get_attribute("aria-keyshortcuts") == "f"

    page.locator("body").press("f")
    assert gold.get_by_label("Fail").is_checked()
    page.keyboard.press("r")
    note = gold.get_by_label("Note")
    assert note.evaluate("el => el === document.activeElement")
    page.keyboard.type("p and n are only text here")  # letters in the note choose nothing
    assert gold.get_by_label("Fail").is_checked() and note.input_value().startswith("p and n")
    page.keyboard.press("Escape")
    assert gold.get_by_label("Fail").evaluate("el => el === document.activeElement")
    page.keyboard.press("r")
    page.keyboard.press("Tab")  # Tab leaves the note for the button: nothing holds the focus
    record = gold.get_by_role("button", name="Record gold verdict")
    assert record.evaluate("el => el === document.activeElement")
    assert record.locator("kbd").inner_text() == "Ctrl+Enter"
    page.keyboard.press("Control+Enter")

    page.wait_for_url(
        f"**{reverse('grading:adjudicate', args=[study.pk, second['item'], second['version']])}"
    )
    page.get_by_role("heading", name=f"Adjudicate {second['code']}").wait_for()
    gold_verdict = GoldVerdict.objects.get()
    assert (gold_verdict.criterion_version_id, gold_verdict.verdict, gold_verdict.note) == (
        first["version"],
        "fail",
        "p and n are only text here",
    )
    page.locator("body").press("p")  # the new pair's choices answer the keys too
    assert page.get_by_role("region", name="Gold verdict").get_by_label("Pass").is_checked()
    assert page.csp_errors == []
