"""Every main page, read in Spanish on the demo data, says nothing in English.

The rule: a piece of visible text (a text node, or a title, label or placeholder) that reads the
same in the English and the Spanish rendering of a page, once the data it shows is taken out
(everything the database holds: names, wordings, codes, response texts), must hold no English
word. An English word is one of the catalogue's English texts (its msgids) that none of its
Spanish texts uses: "Turn", "Annotator" and "sub-competency" are; "CEFR", "Likert" or "no"
are not. So a text the code never marked and one marked but left untranslated both fail."""

import gettext
import io
import re
from collections.abc import Sequence
from html.parser import HTMLParser
from itertools import chain

import pytest
from django.apps import apps
from django.conf import settings
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import models
from django.test import Client
from django.urls import reverse

from accounts.models import User
from accounts.roles import Role
from audit import services as audit
from audit.models import AuditEvent
from demo.accounts import DEMO_ACCOUNTS
from demo.judge_runs import seed_demo_judge_runs
from demo.study import seed_demo_study
from grading.models import Assignment, Study
from interchange.models import ImportJob
from judging import runs as judge_runs
from judging.models import JudgeRun, PromptTemplate, TriageResolution
from people import services as people
from rubrics import services as rubrics
from rubrics.models import Criterion, Task
from taxonomy.models import (
    Competency,
    ContextValue,
    ContextVariable,
    ProficiencyLevel,
    ProficiencyScale,
    SubCompetency,
)

WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
# Placeholders (%(turn)s, {{ name }}, {name}) and markup: no words a reader sees.
NOT_WORDS = re.compile(r"%\(\w+\)\w|\{[^}]*\}|<[^>]*>|&\w+;")
SEPARATORS = re.compile(r"\s*·\s*|:\s+|:$|;\s+")
HIDDEN = {"script", "style", "code", "pre", "kbd", "samp", "textarea", "template"}
SHOWN_ATTRIBUTES = {"title", "aria-label", "placeholder", "alt"}
QUOTED = re.compile(r"'[^']*'|“[^”]*”|\"[^\"]*\"")
# Paths and file names (README.md, data/labels.parquet): data, whatever language they are in.
PATHS = re.compile(r"\S*/\S*|\S+\.\w{1,8}\b")
# A command's options (--epochs) are names, as paths are.
OPTIONS = re.compile(r"(?<!\w)--[a-z][\w-]*")


def english_words() -> set[str]:
    path = settings.BASE_DIR / "locale/es/LC_MESSAGES/django.mo"
    with path.open("rb") as compiled:
        catalogue = gettext.GNUTranslations(compiled)._catalog  # type: ignore[attr-defined]
    english, spanish = set(), set()
    for key, text in catalogue.items():
        msgid = key[0] if isinstance(key, tuple) else key
        if not msgid:  # the header
            continue
        english.update(w.lower() for w in WORD.findall(NOT_WORDS.sub(" ", msgid.split("\x04")[-1])))
        spanish.update(w.lower() for w in WORD.findall(NOT_WORDS.sub(" ", text)))
    return {w for w in english - spanish if len(w) > 2}


class VisibleText(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = 0
        self.texts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in HIDDEN:
            self.hidden += 1
        self.texts += [v for k, v in attrs if k in SHOWN_ATTRIBUTES and v]
        if tag == "input" and dict(attrs).get("type") in ("submit", "button"):
            self.texts.append(dict(attrs).get("value") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in HIDDEN:
            self.hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self.hidden and data.strip():
            self.texts.append(" ".join(data.split()))


def visible_texts(html: str) -> set[str]:
    parser = VisibleText()
    parser.feed(html)
    return set(parser.texts)


def stored_text() -> str:
    """Every text the database holds, one per line: what a page shows as data. A history's
    comments are not: the app wrote them, to be read in the reader's language (a person's own
    comment is kept where the person wrote it too, a review's or a flag's)."""
    values: list[str] = []
    for model in apps.get_models():
        fields = [
            f.name
            for f in model._meta.concrete_fields
            if isinstance(f, (models.CharField, models.TextField, models.JSONField))
            and not (model is AuditEvent and f.name in ("comment", "message"))
        ]
        if fields:
            for row in model._default_manager.values_list(*fields):
                values += [" ".join(str(v).split()) for v in row if v]
    return "\n".join(values)


def english_in(outputs: dict[str, str], data: Sequence[object] = ()) -> dict[str, set[str]]:
    """Per command, the lines of its output that hold an English word, the data (what the
    database holds, quoted values, paths, and the `data` given) taken out."""
    english, stored = english_words(), stored_text()
    found: dict[str, set[str]] = {}
    for command, output in outputs.items():
        for value in data:
            output = output.replace(str(value), " ")
        for line in output.splitlines():
            shown = OPTIONS.sub(" ", PATHS.sub(" ", QUOTED.sub(" ", line)))
            pieces = [p.strip("…+-()[]# 0123456789%,") for p in SEPARATORS.split(shown)]
            words = {
                w
                for p in pieces
                if p and p not in stored
                for w in WORD.findall(p)
                if w.lower() in english
            }
            if words:
                found.setdefault(command, set()).add(f"{line} {sorted(words)}")
    return found


@pytest.fixture(scope="module")
def demo(module_db: None) -> dict[str, object]:
    """The demo data as `seed_demo` makes it, run in a Spanish shell: what it printed too."""
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("LANGUAGE", "es")
        call_command("seed_demo", stdout=out)
    study = seed_demo_study()  # both idempotent: what the command made
    assert study is not None
    return {"study": study, "runs": seed_demo_judge_runs(study), "output": out.getvalue()}


@pytest.mark.django_db
def test_seed_demo_speaks_spanish(demo):
    accounts = [(a.username, a.password) for a in DEMO_ACCOUNTS]
    assert english_in({"seed_demo": str(demo["output"])}, [*chain(*accounts)]) == {}


def main_pages(demo: dict[str, object]) -> list[tuple[str, str]]:
    """(user name, URL) of the pages a maintainer, an annotator and an admin read most."""
    study, runs = demo["study"], demo["runs"]
    assert isinstance(study, Study) and isinstance(runs, list)
    task = Task.objects.filter(responses__study_items__study=study).first()
    assignment = Assignment.objects.filter(
        study_item__study=study, annotator__username="annotator"
    ).first()
    job = ImportJob.objects.first()
    run = runs[-1]
    code = Competency.objects.first().framework.code
    pages = [
        ("admin", reverse("home")),
        ("admin", reverse("profile")),
        ("admin", reverse("taxonomy:competency_card", args=[Competency.objects.first().pk])),
        ("admin", reverse("taxonomy:competencies", args=[code])),
        ("admin", reverse("taxonomy:context-variables", args=[code])),
        ("admin", reverse("taxonomy:scales", args=[code])),
        (
            "admin",
            reverse("taxonomy:contextvariable_card", args=[ContextVariable.objects.first().pk]),
        ),
        ("admin", reverse("taxonomy:scale_card", args=[ProficiencyScale.objects.first().pk])),
        ("admin", reverse("rubrics:task_list")),
        ("admin", reverse("rubrics:task_detail", args=[task.pk])),
        ("admin", reverse("rubrics:task_criteria", args=[task.pk])),
        ("admin", reverse("rubrics:review_queue")),
        ("admin", reverse("grading:studies")),
        ("admin", reverse("grading:study", args=[study.pk])),
        ("admin", reverse("grading:study_manage", args=[study.pk])),
        ("admin", reverse("grading:study_times", args=[study.pk])),
        ("admin", reverse("grading:study_flags", args=[study.pk])),
        ("admin", reverse("grading:adjudication", args=[study.pk])),
        ("admin", reverse("agreement:index")),
        ("admin", reverse("agreement:study", args=[study.pk])),
        ("admin", reverse("judging:calibration", args=[study.pk, run.pk])),
        ("admin", reverse("judging:leaderboard", args=[study.pk])),
        ("admin", reverse("interchange:index")),
        ("admin", reverse("judging:judge", args=[study.pk])),
        ("admin", reverse("judging:run", args=[study.pk, run.pk])),
        ("admin", reverse("judging:triage", args=[study.pk, run.pk])),
        ("admin", reverse("judging:prompts")),
        ("admin", reverse("judging:prompt", args=[PromptTemplate.objects.first().pk])),
        (
            "admin",
            reverse("judging:compare", args=[study.pk])
            + "?"
            + "&".join(f"run={r.pk}" for r in runs),
        ),
        ("admin", reverse("people:people")),
        ("admin", reverse("people:person", args=[User.objects.get(username="annotator").pk])),
        ("admin", reverse("audit:history", args=["rubrics", "task", task.pk])),
        ("annotator", reverse("home")),
        ("annotator", reverse("grading:index")),
    ]
    if assignment is not None:
        pages.append(("annotator", reverse("grading:assignment", args=[assignment.pk])))
    if job is not None:
        pages.append(("admin", reverse("interchange:job", args=[job.pk])))
    return pages


def read(username: str, url: str, language: str) -> str:
    User.objects.filter(username=username).update(language=language)
    client = Client()
    client.force_login(User.objects.get(username=username))
    response = client.get(url)
    assert response.status_code == 200, (url, response.status_code)
    return response.content.decode()


def english_on(
    pages: Sequence[tuple[str, str]], part: re.Pattern[str] | None = None
) -> dict[str, set[str]]:
    """Per URL, the texts a Spanish reader sees there in English (read as `username`); in the
    `part` of the page that pattern finds, when given."""
    english = english_words()
    data = stored_text()
    found: dict[str, set[str]] = {}
    for username, url in pages:
        english_page, spanish_page = read(username, url, "en"), read(username, url, "es")
        if part is not None:
            english_page, spanish_page = (part.search(p)[0] for p in (english_page, spanish_page))
        same = visible_texts(english_page) & visible_texts(spanish_page)
        for text in same:
            # A text made of data ("Class size: 35", "+3 Wording of the criterion…") is data.
            pieces = [p.strip("…+-() 0123456789") for p in SEPARATORS.split(text)]
            words = {
                w for p in pieces if p not in data for w in WORD.findall(p) if w.lower() in english
            }
            if words:
                found.setdefault(url, set()).add(text)
    return found


@pytest.mark.django_db
def test_no_english_reaches_a_spanish_reader_of_the_main_pages(demo):
    found = english_on(main_pages(demo))
    assert found == {}, "\n".join(f"{url}: {sorted(texts)}" for url, texts in found.items())


# What the outline pages offer to add: "Añadir subcompetencia a 01 Gramática".
ADD_TEXTS = re.compile(r"^Añadir\b")


@pytest.mark.django_db
def test_the_taxonomy_pages_offer_to_add_in_spanish(demo):
    """The texts that differ between the languages (so the rule above passes them) are read
    too, the names of what the outline lists taken out."""
    code = Competency.objects.first().framework.code
    names = sorted(
        (
            str(obj)
            for model in (
                Competency,
                SubCompetency,
                ContextVariable,
                ContextValue,
                ProficiencyScale,
                ProficiencyLevel,
            )
            for obj in model.objects.all()
        ),
        key=len,
        reverse=True,
    )
    english = english_words()
    found: dict[str, set[str]] = {}
    for page in ("competencies", "context-variables", "scales"):
        url = reverse(f"taxonomy:{page}", args=[code])
        html = read("admin", url, "es")
        texts = [t for t in visible_texts(html) if ADD_TEXTS.match(t)]
        assert texts, url
        for text in texts:
            shown = text
            for name in names:
                shown = shown.replace(name, " ")
            if {w for w in WORD.findall(shown) if w.lower() in english}:
                found.setdefault(url, set()).add(text)
    assert found == {}, "\n".join(f"{url}: {sorted(texts)}" for url, texts in found.items())


# The list of an admin page (its header and menus are Django's and the libraries').
ADMIN_RESULTS = re.compile(r'<table id="result_list">.*?</table>', re.DOTALL)


def write_histories(
    demo: dict[str, object],
) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """The comments the app writes in histories, through its services and as they were stored
    (in English) before: (user name, URL) of the pages that show them, and of the admin's
    lists of events (the judge's runs and triage resolutions have no history page)."""
    study, run = demo["study"], demo["runs"][-1]
    assert isinstance(study, Study) and isinstance(run, JudgeRun)
    annotator = User.objects.get(username="annotator")
    task = Task.objects.filter(responses__study_items__study=study).first()
    criterion = Criterion.objects.filter(versions__isnull=False).first()
    response = task.responses.first()
    sub = SubCompetency.objects.first()
    people.set_role_from_sign_on(annotator, Role.VIEWER, issuer="https://idp", claim="groups")
    invited = people.invite(
        username="nueva", email="nueva@example.org", role=Role.ANNOTATOR, base_url="", by=None
    )
    JudgeRun.objects.filter(pk=run.pk).update(status=JudgeRun.Status.QUEUED)
    judge_runs.cancel_run(run, by=None)
    rubrics.open_draft_version(criterion, User.objects.get(username="admin"), reason="")
    updated = AuditEvent.Kind.UPDATED
    for obj, comment in [
        (annotator, "The invitation email could not be sent: SMTPServerDisconnected()"),
        (annotator, "single sign-on: https://idp, claim groups"),
        (run, f"Judge run queued on study '{study.name}' with configuration 'demo'."),
        (run, "Judge run queued again."),
        (task, "Imported from an L2-Bench file. Changed: instruction, task criteria."),
        (task, "Published as version 2."),
        (task, "Edited after publication."),
        (task, "Published by an import."),
        (criterion, "Imported from an L2-Bench file. version 3 created"),
        (
            criterion,
            f"version 4 created: found ambiguous: Judge run {run} disagreed with the experts.",
        ),
        (response, "Imported from a file."),
        (response, "Superseded by a new version; what was graded or judged on it stays with it."),
        (sub, "Created by a benchmark import (create missing sub-competencies)."),
    ]:
        audit.record(obj, updated, None, comment=comment)
    reopened = [(0, "judge_error", {"kind": ["judge_error", None]})]
    audit.record_rows(TriageResolution, "deleted", None, reopened, "Triage resolution reopened.")
    judged = ",".join(
        str(ContentType.objects.get_for_model(model).pk) for model in (JudgeRun, TriageResolution)
    )
    return [
        ("admin", reverse("people:person", args=[annotator.pk])),
        ("admin", reverse("people:person", args=[invited.pk])),
        ("admin", reverse("audit:history", args=["rubrics", "task", task.pk])),
        ("admin", reverse("audit:history", args=["rubrics", "criterion", criterion.pk])),
        ("admin", reverse("audit:history", args=["rubrics", "response", response.pk])),
        ("admin", reverse("audit:history", args=["taxonomy", "subcompetency", sub.pk])),
    ], [("admin", reverse("admin:audit_auditevent_changelist") + f"?content_type__id__in={judged}")]


@pytest.mark.django_db
def test_a_history_reaches_a_spanish_reader_in_spanish(demo):
    """The comments the services write and those stored in English before read in Spanish."""
    pages, admin_lists = write_histories(demo)
    found = english_on(pages) | english_on(admin_lists, ADMIN_RESULTS)
    assert found == {}, "\n".join(f"{url}: {sorted(texts)}" for url, texts in found.items())


def test_the_rule_sees_english():
    english = english_words()
    assert {"turn", "annotator", "sub-competency"} <= english
    assert not {"cefr", "likert", "no"} & english
