"""Script in the data never runs: hostile text in a task instruction, a model response (text and
conversation turns, an earlier version), a criterion wording, a grader's rationale, a judge's
rationale, a context value label, an import's report and a webhook receiver's answer is shown
inert on every page that shows it, and stays text in the XLSX export."""

import io
import re
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse
from openpyxl import load_workbook

from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from grading import services
from grading.flags import raise_flag
from grading.models import Assignment
from judging.models import JudgeRun, JudgeVerdict, PromptTemplate, PromptVersion
from rubrics.models import CriterionVersion, Response, RubricVersion, TaskContextValue, Turn
from rubrics.services import record_response
from taxonomy.models import ContextValue
from tests import factories

pytestmark = [pytest.mark.django_db, pytest.mark.http]

PAYLOAD = (
    "<script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1)) "
    '<a href="javascript:alert(1)">y</a>\n\n<div onclick="alert(1)">raw block</div>\n\n'
    "[z](JaVaScRiPt:alert(1)) ![i](javascript:alert(1)) <svg onload=alert(1)>"
)
FORMULA = '=HYPERLINK("http://evil.example","click")'


_URL_ATTRIBUTES = ("href", "src", "action", "formaction", "xlink:href", "data")


class _Executable(HTMLParser):
    """Collects what a browser would run: scripts not from our static files (nor inline with
    the response's CSP nonce, which text in the page cannot know), event handler attributes,
    and javascript: URLs."""

    def __init__(self, nonce: str | None) -> None:
        super().__init__()
        self.found: list[str] = []
        self.nonce = nonce

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        ours = (values.get("src") or "").startswith("/static/") or (
            self.nonce is not None and values.get("nonce") == self.nonce and "src" not in values
        )
        if tag == "script" and not ours:
            self.found.append(f"<script {values}>")
        for name, value in attrs:
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}>")
            url = (value or "").strip().lower().replace("\t", "")
            if name in _URL_ATTRIBUTES and url.startswith("javascript:"):
                self.found.append(f"<{tag} {name}={value}>")


def executable_markup(html: str, csp: str = "") -> list[str]:
    """What would run in `html`, served with the Content-Security-Policy header `csp`."""
    nonce = re.search(r"'nonce-([^']+)'", csp)
    parser = _Executable(nonce.group(1) if nonce else None)
    parser.feed(html)
    return parser.found


@pytest.fixture(scope="module")
def built(module_db):
    """Hostile text everywhere, graded and judged; built once for the module."""
    sync_roles()
    admin = create_user_with_role("ada", "pw-ada", Role.ADMIN)
    ben = create_user_with_role("ben", "pw-ben", Role.ANNOTATOR)
    task = factories.published_task()
    task.instruction = PAYLOAD
    task.save()
    RubricVersion.objects.filter(task=task).update(instruction=PAYLOAD)
    CriterionVersion.objects.filter(criterion__task=task).update(wording=PAYLOAD, passes=PAYLOAD)
    label = ContextValue.objects.filter(variable__key="cefr_level").first()
    label.label = PAYLOAD[:200]
    label.save()
    TaskContextValue.objects.create(task=task, variable=label.variable, value=label)
    text = Response.objects.create(task=task, model_name="m-text", text=PAYLOAD)
    talk = Response.objects.create(task=task, model_name="m-talk", kind="conversation")
    Turn.objects.create(response=talk, index=0, role="user", content=PAYLOAD)
    Turn.objects.create(response=talk, index=1, role="assistant", content=PAYLOAD)
    study = services.create_study(
        name="XSS study",
        framework=task.framework,
        responses=[text, talk],
        annotators=[ben],
        overlap=2,
    )
    # Ada, the admin, grades too, to open every page as one person: the services put only
    # annotators in a pool (grading.models.check_graders), so she joins it here, directly.
    study.pool.create(annotator=admin)
    services.assign_study(study)
    for grader, verdict in ((admin, "pass"), (ben, "fail")):
        for assignment in Assignment.objects.filter(study_item__study=study, annotator=grader):
            for version in factories.rubric_of(assignment):
                services.save_grade(
                    assignment, version.pk, verdict=verdict, rationale=PAYLOAD, by=grader
                )
            for item in study.likert_items.all():
                services.save_likert(assignment, item.pk, 3, by=grader)
    # Ada (an Admin, who grades too) submits all but her first response, which stays open to
    # her; on the others she and Ben disagree, so the agreement pages list disagreements.
    first = Assignment.objects.filter(study_item__study=study, annotator=admin).first()
    for assignment in Assignment.objects.filter(study_item__study=study).exclude(pk=first.pk):
        services.submit(assignment, by=assignment.annotator)
    version = factories.rubric_of(first)[0]
    services.save_grade(first, version.pk, verdict="fail", rationale=FORMULA, by=admin)
    raise_flag(first, kind="other", comment=PAYLOAD, criterion_version_id=version.pk, by=admin)
    run = JudgeRun.objects.create(
        judge_model="judge",
        prompt_version=PAYLOAD[:100],
        parameters={"study": study.pk},
        problems=[PAYLOAD],
    )
    prompt = PromptTemplate.objects.create(name="hostile", description=PAYLOAD)
    PromptVersion.objects.create(
        template=prompt, number=1, text=f"{PAYLOAD} {{{{task}}}} {{{{response}}}}", note=PAYLOAD
    )
    for response in (text, talk):
        JudgeVerdict.objects.create(
            run=run, response=response, criterion_version=version, verdict=True, rationale=PAYLOAD
        )
    # A response changed after it was judged: its earlier version on the task page, and the
    # import that made the new one on its job page.
    judged, _ = record_response(task, PAYLOAD[:200], text=PAYLOAD, external_id=PAYLOAD[:200])
    JudgeVerdict.objects.create(run=run, response=judged, criterion_version=version, verdict=True)
    record_response(task, PAYLOAD[:200], text=f"{PAYLOAD} again", external_id=PAYLOAD[:200])
    job = factories.make_job(
        task.framework,
        original_name=PAYLOAD[:200],
        new_versions=[
            {"line": 1, "task_key": PAYLOAD, "response_id": PAYLOAD, "version": 2,
             "previous_version": 1, "changed": ["text", PAYLOAD], "studies": [PAYLOAD]}
        ],
    )  # fmt: skip
    # A webhook receiver answered with hostile text.
    delivery = factories.make_delivery(factories.make_hook(description=PAYLOAD[:200]))
    delivery.answers.update(body=PAYLOAD)
    return {
        "hook": delivery.hook,
        "job": job,
        "admin": admin,
        "task": task,
        "study": study,
        "mine": first,
        "version": version,
        "run": run,
        "prompt": prompt,
        "ben": ben,
    }


@pytest.fixture
def world(built, db):
    world = factories.fresh(built)
    world["client"] = Client()
    world["client"].force_login(world["admin"])
    return world


def _pages(w) -> dict[str, str]:
    study, item = w["study"].pk, w["mine"].study_item_id
    return {
        "home": reverse("home"),
        "task list": reverse("rubrics:task_list"),
        "task detail": reverse("rubrics:task_detail", args=[w["task"].pk]),
        "grading page": reverse("grading:assignment", args=[w["mine"].pk]),
        "study": reverse("grading:study", args=[study]),
        "adjudication": reverse("grading:adjudication", args=[study]),
        "adjudicate": reverse("grading:adjudicate", args=[study, item, w["version"].pk]),
        "agreement": reverse("agreement:study", args=[study]),
        "leaderboard": reverse("judging:leaderboard", args=[study]),
        "judge": reverse("judging:calibration", args=[study, w["run"].pk]),
        "offline": reverse("interchange:offline", args=[study]),
        "judge runs": reverse("judging:judge", args=[study]),
        "judge run": reverse("judging:run", args=[study, w["run"].pk]),
        "prompts": reverse("judging:prompts"),
        "prompt editor": reverse("judging:prompt", args=[w["prompt"].pk]),
        "new study": reverse("grading:study_create"),
        "study pool": reverse("grading:study_manage", args=[study]),
        "people": reverse("people:people"),
        "flags": reverse("grading:study_flags", args=[study]),
        "flag form": reverse("grading:flag", args=[w["mine"].pk]),
        "import job": reverse("interchange:job", args=[w["job"].pk]),
        "webhook": reverse("webhooks:hook", args=[w["hook"].pk]),
        "webhooks": reverse("webhooks:hooks"),
    }


@pytest.mark.parametrize("as_htmx", [False, True], ids=["page", "htmx"])
@pytest.mark.parametrize(
    "page",
    [
        "home",
        "task list",
        "task detail",
        "grading page",
        "study",
        "adjudication",
        "adjudicate",
        "agreement",
        "leaderboard",
        "judge",
        "offline",
        "judge runs",
        "judge run",
        "prompts",
        "prompt editor",
        "new study",
        "study pool",
        "people",
        "flags",
        "flag form",
        "import job",
        "webhook",
        "webhooks",
    ],
)
def test_hostile_text_is_inert_on_every_page(world, page, as_htmx) -> None:
    headers = {"HTTP_HX_REQUEST": "true"} if as_htmx else {}

    response = world["client"].get(_pages(world)[page], **headers)

    assert response.status_code == 200
    assert executable_markup(response.text, response.get("Content-Security-Policy", "")) == []


def test_the_pages_do_show_the_text(world) -> None:
    """The walk above is not vacuous: the hostile text reaches the pages, escaped."""
    response = world["client"].get(_pages(world)["task detail"])

    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in response.text
    editor = world["client"].get(_pages(world)["prompt editor"])
    assert editor.text.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 3  # text, preview, note
    agreement = world["client"].get(_pages(world)["agreement"])
    assert "raw block" in agreement.text  # a disagreement, with its criterion wording
    assert "1 earlier version" in response.text  # a response's history
    job = world["client"].get(_pages(world)["import job"])
    assert job.text.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 5  # id, task, studies
    hook = world["client"].get(_pages(world)["webhook"])
    assert hook.text.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 2  # description, answer


def test_a_rationale_that_looks_like_a_formula_stays_text_in_the_xlsx(world) -> None:
    response = world["client"].get(
        reverse("interchange:export_grades_xlsx", args=[world["study"].pk])
    )
    book = load_workbook(io.BytesIO(b"".join(response.streaming_content)))

    cells = [c for row in book["Grades"].iter_rows() for c in row if c.value == FORMULA]
    assert cells and {c.data_type for c in cells} == {"s"}


def test_the_detector_finds_the_payload_when_it_is_not_escaped() -> None:
    found = executable_markup(PAYLOAD)

    assert "<script {}>" in found and "<img onerror>" in found and "<div onclick>" in found
    assert any("javascript:" in f for f in found)
    csp = "script-src 'self' 'nonce-page'"
    assert executable_markup('<script nonce="page">ours()</script>', csp) == []
    assert executable_markup('<script nonce="guess">theirs()</script>', csp) != []
