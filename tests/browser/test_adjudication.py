"""What a maintainer does in the browser: adjudicate a study's disagreements one after another."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from grading import adjudication
from grading.models import GoldVerdict
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


def test_maintainer_records_a_gold_verdict_and_the_next_disagreement_appears(
    new_page, log_in, make_user
):
    graders = [make_user(Role.ANNOTATOR) for _ in range(3)]
    study = factories.graded_study(graders, ["pass", "fail", "fail"], responses=1)
    first, second = list(adjudication.disagreements(study))[:2]
    page = new_page()
    log_in(page, Role.MAINTAINER)

    page.goto(reverse("grading:study", args=[study.pk]))
    page.get_by_role("link", name="Disagreements to adjudicate").click()
    page.wait_for_url("**/adjudication/")
    assert page.get_by_role("heading", name="3 disagreements").is_visible()
    page.locator(f"#pair-{first['item']}-{first['version']}").get_by_role(
        "link", name="Adjudicate"
    ).click()
    page.get_by_role("heading", name=f"Adjudicate {first['code']}").wait_for()
    assert page.get_by_text("Grader 3").is_visible()
    assert not any(page.get_by_text(g.username).count() for g in graders)

    page.get_by_label("Fail").check()
    page.get_by_label("Note").fill("The activity ignores the class size.")
    page.evaluate("window.stillThisPage = true")  # survives an htmx swap, not a page load
    page.get_by_role("button", name="Record gold verdict").click()

    page.get_by_role("heading", name=f"Adjudicate {second['code']}").wait_for()
    assert (
        page.get_by_role("status")
        .inner_text()
        .startswith(f"Gold verdict recorded for {first['code']}")
    )
    page.wait_for_url(
        f"**{reverse('grading:adjudicate', args=[study.pk, second['item'], second['version']])}"
    )
    assert page.evaluate("window.stillThisPage") is True
    gold = GoldVerdict.objects.get()
    assert (gold.criterion_version_id, gold.verdict, gold.note) == (
        first["version"],
        "fail",
        "The activity ignores the class size.",
    )
    assert page.get_by_text("2 disagreements without a gold verdict").is_visible()

    # A penalty reads by meaning: the graders' "pass" is Present, the choices Present / Absent.
    penalty = next(p for p in adjudication.disagreements(study) if p["weight"] < 0)
    page.goto(reverse("grading:adjudicate", args=[study.pk, penalty["item"], penalty["version"]]))
    grades = page.locator(".grades")
    assert grades.get_by_text("Present", exact=True).count() == 1
    assert grades.get_by_text("Absent", exact=True).count() == 2
    choices = page.locator(".gold")
    assert choices.get_by_role("radio", name="Present", exact=True).count() == 1
    assert choices.get_by_role("radio", name="Absent", exact=True).count() == 1
    assert choices.get_by_role("radio", name="Pass", exact=True).count() == 0
    assert page.csp_errors == []
