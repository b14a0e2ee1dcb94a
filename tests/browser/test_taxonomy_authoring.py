"""What an author does in the browser: grow the competency tree without leaving the page."""

import pytest
from django.urls import reverse

from accounts.roles import Role
from taxonomy.models import Competency, SubCompetency
from tests.factories import make_framework

pytestmark = pytest.mark.django_db(transaction=True)


def test_author_adds_a_sub_competency_by_htmx_and_it_persists(new_page, log_in):
    make_framework()
    page = new_page()
    log_in(page, Role.AUTHOR)
    page.get_by_role("link", name="Taxonomy", exact=True).click()
    page.wait_for_url("**/taxonomy/test-fw/competencies/")
    page.evaluate("window.__sameDocument = true")

    card = page.locator(f"#item-{Competency.objects.get(code='01').pk}")
    card.get_by_text("Add a sub-competency").click()
    card.get_by_label("Code").fill("01c")
    card.get_by_label("Name").fill("Planning across a unit")
    card.get_by_role("button", name="Add sub-competency").click()

    added = card.get_by_role("status")
    added.wait_for()
    assert "Added" in added.inner_text()
    assert card.locator("li.child", has_text="01c Planning across a unit").is_visible()
    # The card was swapped in place: the document (and our marker on it) survived.
    assert page.evaluate("window.__sameDocument") is True
    assert SubCompetency.objects.filter(code="01c", name="Planning across a unit").exists()

    page.reload()
    assert page.locator("li.child", has_text="01c Planning across a unit").is_visible()
    assert page.csp_errors == []


def test_author_sees_a_clear_message_for_a_duplicate_code(new_page, log_in):
    make_framework()
    page = new_page(width=360)
    log_in(page, Role.AUTHOR)
    page.goto(reverse("taxonomy:competencies", args=["test-fw"]))
    card = page.locator(f"#item-{Competency.objects.get(code='02').pk}")
    card.get_by_text("Add a sub-competency").click()
    card.get_by_label("Code").fill("01a")
    card.get_by_label("Name").fill("Clash")
    card.get_by_role("button", name="Add sub-competency").click()
    page.get_by_text("Code 01a is already used in this framework.").wait_for()
    assert not SubCompetency.objects.filter(name="Clash").exists()


def test_annotator_is_refused_authoring(new_page, log_in):
    make_framework()
    sub = SubCompetency.objects.get(code="01a")
    page = new_page()
    log_in(page, Role.ANNOTATOR)
    response = page.goto(reverse("taxonomy:subcompetency_edit", args=[sub.pk]))
    assert response.status == 403
    assert page.get_by_role("heading", name="Not allowed").is_visible()
