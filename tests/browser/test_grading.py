"""What an annotator does in the browser: grade a whole response from the keyboard, beside the
response on a wide screen, and move between the response and the criteria on a phone."""

import threading

import pytest
from django.urls import reverse
from playwright.sync_api import expect

from accounts.roles import Role
from grading import services
from grading.models import Assignment, Grade, Study
from grading.views import assignment as assignment_views
from tests import factories

pytestmark = pytest.mark.django_db(transaction=True)


def start_grading(page, study) -> Assignment:
    page.goto(reverse("grading:index"))
    page.get_by_role("button", name="Start grading").click()
    page.wait_for_url("**/grading/assignments/*/")
    return Assignment.objects.get(pk=int(page.url.rstrip("/").rsplit("/", 1)[1]))


def saved(page, element_id: str) -> None:
    page.locator(f"#{element_id} .save-state.saved").wait_for()


def box(page, selector: str) -> dict[str, float]:
    return page.locator(selector).bounding_box()


def test_annotator_grades_a_response_with_the_keyboard_and_gets_the_next(
    new_page, log_in, monkeypatch
):
    first_page, second_page = new_page(width=1280), new_page(width=360)
    first = log_in(first_page, Role.ANNOTATOR)
    second = log_in(second_page, Role.ANNOTATOR)
    universal = factories.universal_criterion()  # does not apply to any task of the study
    study = factories.study([first, second], responses=3, overlap=1, not_applicable=[universal])

    mine = start_grading(first_page, study)
    theirs = start_grading(second_page, study)
    assert theirs.study_item_id != mine.study_item_id

    page = first_page
    criteria = [v for v in factories.rubric_of(mine) if v.criterion_id != universal.pk]
    likert = list(study.likert_items.all())
    total = len(criteria) + len(likert)

    # Two panes: the task and the response beside the criteria, each scrolling on its own.
    reading, rubric = box(page, "#reading"), box(page, "#criteria-pane")
    assert reading["x"] + reading["width"] <= rubric["x"] and reading["y"] == rubric["y"]
    assert page.locator("#criteria-pane").evaluate("e => getComputedStyle(e).overflowY") == "auto"
    assert page.locator("#answered-count").inner_text() == f"0 of {total} answered"

    # The criterion that does not apply takes no stop on the keyboard path, and no buttons.
    assert page.locator("[data-step]").count() == total
    not_applicable = page.locator(".not-applicable")
    assert not_applicable.get_by_text(universal.code).count() == 1
    assert not_applicable.get_by_role("button").count() == 0
    assert page.locator(f"#criterion-{criteria[0].pk}.current").count() == 1

    # Each button shows its key; a penalty reads Present / Absent, its effect said once.
    first_line = page.locator(f"#criterion-{criteria[0].pk}")
    assert first_line.get_by_role("button", name="Pass", exact=True).inner_text() == "Pass p"
    penalty = page.locator(f"#criterion-{criteria[-1].pk}")
    assert [b.inner_text() for b in penalty.get_by_role("button").all()] == [
        "Present p",
        "Absent a",
        "N/A n",
    ]
    assert penalty.get_by_text("Penalty: if present, -2 to the score").is_visible()
    assert penalty.get_by_text("Rationale (required for Present)").is_visible()

    # Letters typed outside a box never act: not even the "p" or "s" inside the words. The
    # letters are sent in one task of the page, as a typist's follow each other: typed one by
    # one from here, a busy test machine could leave more than the page's wait between two.
    page.evaluate(
        """text => { for (const key of text) document.activeElement.dispatchEvent(
            new KeyboardEvent("keydown", {key, bubbles: true, cancelable: true})); }""",
        "spelling is poor",
    )
    page.locator(".typing-note").wait_for()
    page.locator(".typing-note").wait_for(state="detached")  # the pause ends with the typing
    assert not Grade.objects.filter(assignment=mine).exists()
    assert page.url.endswith(reverse("grading:assignment", args=[mine.pk]))

    # A save that does not reach the server says so, and Retry sends it again.
    save_url = reverse("grading:save_grade", args=[mine.pk, criteria[0].pk])
    page.route(f"**{save_url}", lambda route: route.abort())
    page.keyboard.press("p")
    first_line.get_by_text("Not saved").wait_for()
    page.unroute(f"**{save_url}")
    first_line.get_by_role("button", name="Retry").click()
    saved(page, f"criterion-{criteria[0].pk}")
    page.locator(f"#criterion-{criteria[1].pk}").focus()

    page.keyboard.press("?")
    assert page.locator("#keyboard-help").is_visible()
    page.keyboard.press("Escape")
    assert not page.locator("#keyboard-help").is_visible()

    for version in criteria[1:-1]:
        page.keyboard.press("p")
        saved(page, f"criterion-{version.pk}")
    last = f"criterion-{criteria[-1].pk}"
    page.keyboard.press("p")  # Present on a penalty, without a rationale: the marker stays
    saved(page, last)
    # Playwright's expect polls through the protocol: the page's CSP forbids the string
    # predicates wait_for_function evaluates in the page.
    expect(page.locator(f"#{last}")).to_be_focused()
    page.keyboard.press("r")
    expect(page.locator(f"#rationale-{criteria[-1].pk}")).to_be_focused()
    page.keyboard.type("Asks learners to use a projector the class does not have.")
    page.keyboard.press("Escape")
    expect(page.locator(f"#{last} .warning")).to_have_count(0)
    page.keyboard.press("j")
    for item in likert:
        page.keyboard.press("4")
        saved(page, f"likert-{item.pk}")
    assert page.locator("#answered-count").inner_text() == f"{total} of {total} answered"
    response_title = box(page, "#response-title")  # still in view beside the last criterion
    assert 0 <= response_title["y"] <= 800

    # Submitting asks first: "s" opens the question, "Keep grading" stays.
    page.keyboard.press("s")
    page.get_by_role("button", name="Keep grading").click()
    assert not page.locator("#submit-confirm").is_visible()

    # A rationale written just before submitting counts, however slow its save: Fail on the
    # first criterion, its rationale saved on Escape (held by the server until released), "s"
    # and Submit at once. The submission waits for the save, so it is not refused for the
    # rationale the save was bringing.
    first_line.focus()
    page.keyboard.press("f")
    page.locator(f"#criterion-{criteria[0].pk}.verdict-is-fail .save-state.saved").wait_for()
    release = threading.Event()
    own_locked = assignment_views._own_locked

    def held(request, assignment_id):
        release.wait(10)
        return own_locked(request, assignment_id)

    monkeypatch.setattr(assignment_views, "_own_locked", held)
    page.keyboard.press("r")
    expect(page.locator(f"#rationale-{criteria[0].pk}")).to_be_focused()
    page.keyboard.type("Calls the past simple the present perfect.")
    page.keyboard.press("Escape")
    first_line.locator(".save-state.saving").wait_for()
    page.keyboard.press("s")
    page.get_by_role("dialog").get_by_role("button", name="Submit", exact=True).click()
    expect(page.locator("#submit-button")).to_have_attribute("aria-busy", "true")
    release.set()
    page.wait_for_url(lambda url: f"/assignments/{mine.pk}/" not in url)
    following = Assignment.objects.get(annotator=first, status=Assignment.Status.IN_PROGRESS)
    assert page.url.endswith(reverse("grading:assignment", args=[following.pk]))
    assert following.study_item_id not in {mine.study_item_id, theirs.study_item_id}

    mine.refresh_from_db()
    assert mine.status == Assignment.Status.SUBMITTED
    verdicts = dict(
        Grade.objects.filter(assignment=mine).values_list("criterion_version", "verdict")
    )
    # Present on a penalty is stored as "pass": the behaviour is there (judged true).
    assert verdicts == {v.pk: "fail" if v == criteria[0] else "pass" for v in criteria}
    assert Grade.objects.get(assignment=mine, criterion_version=criteria[0]).rationale == (
        "Calls the past simple the present perfect."
    )
    assert Grade.objects.get(assignment=mine, criterion_version=criteria[-1]).rationale.startswith(
        "Asks learners"
    )
    assert page.csp_errors == []


def test_an_assignment_opened_from_a_link_is_started_by_its_page_as_it_loads(new_page, log_in):
    page = new_page()
    annotator = log_in(page, Role.ANNOTATOR)
    study = factories.study([annotator], responses=1, overlap=1)
    services.assign_study(study)
    mine = Assignment.objects.get(annotator=annotator)
    start = reverse("grading:assignment_start", args=[mine.pk])
    with page.expect_response(lambda response: response.url.endswith(start)) as started:
        page.goto(reverse("grading:assignment", args=[mine.pk]))
    assert started.value.status == 204
    mine.refresh_from_db()
    assert mine.status == Assignment.Status.IN_PROGRESS
    assert page.csp_errors == []


def test_on_a_phone_the_response_and_the_criteria_each_keep_their_place(new_page, log_in):
    page = new_page(width=390)
    annotator = log_in(page, Role.ANNOTATOR)
    study = factories.study([annotator], responses=1, overlap=1)
    answer = study.items.get().response
    answer.text = "\n\n".join(f"Paragraph {n} of a long answer. " * 8 for n in range(1, 40))
    answer.save()
    start_grading(page, study)

    reading, rubric = box(page, "#reading"), box(page, "#criteria-pane")
    assert reading["x"] == rubric["x"] and rubric["y"] >= reading["y"] + reading["height"]

    page.get_by_text("Paragraph 20 of").scroll_into_view_if_needed()
    reading_place = page.evaluate("window.scrollY")
    page.get_by_role("link", name="Back to the criteria").click()
    assert page.locator("#rubric-title").is_visible()
    page.get_by_role("link", name="Back to the response").click()
    assert page.evaluate("window.scrollY") == reading_place
    assert page.get_by_text("Paragraph 20 of").is_visible()


def test_an_annotator_with_nothing_to_grade_is_told_why_and_what_to_do(new_page, log_in, make_user):
    page = new_page()
    me = log_in(page, Role.ANNOTATOR)
    other = make_user(Role.ANNOTATOR)
    waiting = factories.study([me, other], responses=1, overlap=1)
    services.claim_next(waiting, other)  # the one response has its one grader
    closed = factories.study([me], responses=1, overlap=1)  # newer, but closed: listed last
    services.set_status(closed, Study.Status.CLOSED)

    page.goto(reverse("grading:index"))
    studies = page.get_by_role("heading", level=2).all_inner_texts()
    assert studies == [waiting.name, closed.name]
    page.get_by_role("button", name="Start grading").click()
    page.wait_for_url("**/grading/")
    message = page.locator(".messages").inner_text()
    assert "every response already has its 1 grader" in message
    assert "Ask the study's maintainers to assign you responses" in message
    assert page.csp_errors == []


def test_annotator_grades_each_tutor_turn_of_a_dialogue_from_the_keyboard(new_page, log_in):
    page = new_page(width=1280)
    grader = log_in(page, Role.ANNOTATOR)
    task = factories.published_task(turn_rule="all")
    study = services.create_study(
        name="Dialogue keys", framework=task.framework, annotators=[grader], overlap=1,
        responses=[factories.response(task, turns=4)], likert_prompts=(),
    )  # fmt: skip
    services.assign_study(study)
    mine = start_grading(page, study)
    first, _, penalty = factories.rubric_of(mine)
    tutor = list(services.tutor_turns(mine.study_item.response_id))
    # Two turn-level criteria on two tutor turns, and one criterion on the whole dialogue.
    assert page.locator("[data-step]").count() == 5
    assert page.locator("#answered-count").inner_text() == "0 of 5 answered"
    for turn in tutor:
        step = f"criterion-{first.pk}-turn-{turn.pk}"
        assert page.locator(f"#{step}.current").count() == 1
        page.keyboard.press("p")
        saved(page, step)
    page.locator(f"#turn-summary-{first.pk}").get_by_text("Pass", exact=True).wait_for()
    assert page.locator("#answered-count").inner_text() == "2 of 5 answered"
    assert Grade.objects.get(assignment=mine, criterion_version=first).verdict == "pass"
    assert page.locator(f"#criterion-{penalty.pk}-turn-{tutor[0].pk} .verdicts").is_visible()
    assert page.csp_errors == []
