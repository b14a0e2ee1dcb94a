"""Flags and time per criterion in the browser, as a grader on a phone and a maintainer do it:
the grader times a criterion, flags another from the keyboard, sets the response aside and goes
on; the maintainer resolves the flag and the response goes back to its grader."""

import time

import pytest
from django.urls import reverse

from accounts.roles import Role
from grading.models import Assignment, Flag, Grade
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_grader_flags_from_the_keyboard_and_a_maintainer_returns_the_response(new_page, log_in):
    phone, desk = new_page(width=390), new_page(width=1280)
    grader = log_in(phone, Role.ANNOTATOR)
    log_in(desk, Role.MAINTAINER)
    study = factories.study([grader], responses=2, overlap=1)

    phone.goto(reverse("grading:index"))
    phone.get_by_role("button", name="Start grading").click()
    phone.wait_for_url("**/grading/assignments/*/")
    mine = Assignment.objects.get(pk=int(phone.url.rstrip("/").rsplit("/", 1)[1]))
    first, second = factories.rubric_of(mine)[:2]

    # Time per criterion: going to a criterion starts its clock, its verdict stops it and the
    # time travels with the autosave.
    phone.keyboard.press("j")
    phone.keyboard.press("k")
    time.sleep(1.2)
    phone.keyboard.press("p")
    phone.locator(f"#criterion-{first.pk} .save-state.saved").wait_for()
    active = Grade.objects.get(assignment=mine, criterion_version=first).active_ms
    assert active is not None and 1200 <= active < 10_000

    # x flags the marked criterion (the next one after the verdict): criterion unclear.
    phone.locator(f"#criterion-{second.pk}.current").wait_for()
    phone.keyboard.press("x")
    dialog = phone.locator("#flag-dialog")
    dialog.wait_for()
    assert dialog.get_by_text(f"criterion {second.criterion.code}").is_visible()
    assert dialog.get_by_role("radio", name="Criterion unclear").is_checked()
    phone.keyboard.press("Tab")
    phone.keyboard.type("Which register does it mean?")
    dialog.get_by_role("button", name="Send the flag").press("Enter")
    dialog.wait_for(state="hidden")
    mine_list = phone.locator("#my-flags")
    mine_list.get_by_text("Which register does it mean?").wait_for()

    # The response as a whole: broken, set aside; the next response opens at once.
    phone.get_by_role("link", name="Flag or set aside").click()
    dialog.wait_for()
    assert not dialog.get_by_role("radio", name="Criterion unclear").is_visible()
    dialog.get_by_role("radio", name="Response broken").check()
    dialog.get_by_label("Comment").fill("The answer stops mid-sentence.")
    dialog.get_by_label("Set this response aside").check()
    dialog.get_by_role("button", name="Send the flag").click()
    phone.wait_for_url(lambda url: f"/assignments/{mine.pk}/" not in url)
    phone.get_by_text("Set aside with your flag").wait_for()
    assert Assignment.objects.get(pk=mine.pk).skipped_at is not None

    # The maintainer sees both flags on the study's page and returns the response.
    desk.goto(reverse("grading:study_flags", args=[study.pk]))
    assert desk.locator("#open-count").inner_text() == "2"
    broken = Flag.objects.get(kind="response_broken")
    card = desk.locator(f"#flag-{broken.pk}")
    card.get_by_label("Resolution note").fill("It was cut by the export; fixed.")
    card.get_by_role("button", name="Resolve").click()
    card.get_by_text("Resolved by").wait_for()
    assert Assignment.objects.get(pk=mine.pk).skipped_at is None
    unclear = Flag.objects.get(kind="criterion_unclear")
    assert (unclear.by, unclear.criterion_version_id, unclear.status) == (grader, second.pk, "open")
