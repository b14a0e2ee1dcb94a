"""What an author and a maintainer do in the browser: write a task with its context and
criteria, submit it, publish it, then edit a published criterion into a new draft version."""

import pytest

from accounts.roles import Role
from rubrics.models import CriterionVersion, RubricVersion, Task
from taxonomy.models import SubCompetency

pytestmark = pytest.mark.django_db(transaction=True)


def test_author_writes_a_task_maintainer_publishes_and_an_edit_makes_a_new_draft(
    new_page, log_in, starter_framework
):
    author = new_page(width=360)
    log_in(author, Role.AUTHOR)
    author.get_by_role("link", name="Tasks", exact=True).click()
    author.get_by_role("link", name="New task").click()
    sub = SubCompetency.objects.get(competency__framework=starter_framework, code="02a")
    author.get_by_label("Sub-competency").select_option(label=str(sub))
    author.get_by_label("Key").fill("b1")
    author.get_by_label("Instruction").fill("Plan a five-minute placement chat.")
    author.get_by_label("Reference answer").fill("Open questions, then a short reading.")
    author.get_by_label("Difficulty").select_option("medium")
    author.get_by_role("button", name="Create task").click()
    author.wait_for_url("**/rubrics/tasks/*/edit/")
    task = Task.objects.get(key="b1")

    # Context values: a listed value and a number, saved by htmx without leaving the page.
    author.evaluate("window.__sameDocument = true")
    author.get_by_label("CEFR level").select_option(label="B1")
    class_size = author.get_by_label("Class size")
    assert class_size.get_attribute("step") == "1"  # a count: whole numbers
    class_size.fill("14")
    author.get_by_role("button", name="Save context").click()
    author.get_by_role("status").filter(has_text="Context saved").wait_for()
    assert author.evaluate("window.__sameDocument") is True
    assert task.context_values.get(variable__key="cefr_level").display_value == "B1"
    author.reload()
    assert author.get_by_label("Class size").input_value() == "14"  # as entered, not 14.000

    author.get_by_role("link", name="Task criteria").click()
    # Ask about the form only once the criteria page is loaded: asked on the old page, the
    # answer is "hidden", and the click meant to open the form would close it.
    author.wait_for_url("**/rubrics/tasks/*/criteria/")
    for wording, weight in [("Asks about the learner's goals.", "3"), ("Gives a time plan.", "1")]:
        form = author.get_by_role("form", name="Add a criterion")
        if not form.is_visible():
            author.get_by_text("Add a criterion", exact=True).click()
        # The scale's fields only for a scaled (ordinal) criterion.
        assert not form.get_by_label("Scale minimum").is_visible()
        form.get_by_label("Scoring").select_option("ordinal")
        assert form.get_by_label("Scale minimum").is_visible()
        form.get_by_label("Scoring").select_option("binary")
        assert not form.get_by_label("Scale labels").is_visible()
        form.get_by_label("Wording").fill(wording)
        form.get_by_label("Weight").fill(weight)
        form.get_by_role("button", name="Add criterion").click()
        author.locator("#criteria .criterion", has_text=wording).wait_for()
    # The live preview took both additions.
    author.locator("#preview", has_text="Gives a time plan.").wait_for()
    assert author.get_by_test_id("possible").inner_text() == "4"

    author.get_by_role("link", name="Task page").click()
    author.get_by_role("button", name="Submit for review").click()
    author.get_by_text(f"{task} was submitted for review.").wait_for()
    task.refresh_from_db()
    assert task.status == Task.Status.IN_REVIEW

    maintainer = new_page()
    log_in(maintainer, Role.MAINTAINER)
    maintainer.goto("/rubrics/review/")
    maintainer.get_by_role("link", name="b1", exact=True).click()
    maintainer.get_by_role("button", name="Approve and publish").click()
    maintainer.get_by_text(f"{task} was published as version 1.").wait_for()
    published = RubricVersion.objects.get(task=task)

    # Back to the author: editing a published criterion makes version 2, a draft.
    author.goto(f"/rubrics/tasks/{task.pk}/criteria/")
    first = author.locator("#criteria .criterion", has_text="Asks about the learner's goals.")
    first.get_by_role("link", name="Edit").click()
    editor = author.get_by_role("form", name="Edit b1-01")
    editor.get_by_text("Version 1 is published and frozen").wait_for()
    editor.get_by_label("Wording").fill("Asks about the learner's goals and time.")
    editor.get_by_role("button", name="Save b1-01").click()
    card = author.locator("#criteria .criterion", has_text="goals and time")
    card.wait_for()
    assert "v2 draft" in card.inner_text()

    versions = list(
        CriterionVersion.objects.filter(criterion__code="b1-01").values_list(
            "number", "wording", "frozen"
        )
    )
    assert versions == [
        (1, "Asks about the learner's goals.", True),
        (2, "Asks about the learner's goals and time.", False),
    ]
    wordings = {line.code: line.version.wording for line in published.effective_rubric()}
    assert wordings["b1-01"] == "Asks about the learner's goals."

    author.goto(f"/rubrics/tasks/{task.pk}/diff/")
    diff = author.locator("article", has_text="b1-01")
    assert "Asks about the learner's goals." in diff.inner_text()
    assert "Asks about the learner's goals and time." in diff.inner_text()
    assert author.csp_errors == [] and maintainer.csp_errors == []
