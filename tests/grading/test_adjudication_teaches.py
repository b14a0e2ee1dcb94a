"""Adjudication that teaches: adjudicators record why the experts split and how sure they are,
the agreement page sums the reasons per criterion so an unclear criterion stands out, and an
annotator in a qualification round reads where they differed from the gold, and why."""

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from accounts.roles import Role
from grading import adjudication, gold, services
from grading.models import Assignment, GoldVerdict, Study
from tests import factories

pytestmark = pytest.mark.django_db


def test_a_new_study_offers_the_four_reasons_and_an_adjudicator_records_one(make_user):
    study = factories.study([], responses=1, overlap=1)
    assert study.split_reasons == [
        "criterion_unclear",
        "response_ambiguous",
        "grader_slip",
        "guidance_missing",
    ]
    item, adjudicator = study.items.get(), make_user(Role.MAINTAINER)
    first = item.rubric_version.effective_rubric()[0].version
    recorded = adjudication.record_gold_verdict(
        item, first.pk, verdict="fail", note="Ambiguous.", by=adjudicator, base_revision=0,
        split_reason="criterion_unclear", confidence="low",
    )  # fmt: skip
    assert (recorded.split_reason, recorded.confidence) == ("criterion_unclear", "low")
    changed = adjudication.record_gold_verdict(
        item, first.pk, verdict="fail", note="Ambiguous.", by=adjudicator, base_revision=1,
        split_reason="grader_slip", confidence="high",
    )  # fmt: skip
    assert changed.revision == 2 and changed.split_reason == "grader_slip"
    kept = adjudication.record_gold_verdict(  # as the API saves it: the reason stays
        item, first.pk, verdict="pass", note="", by=adjudicator, base_revision=2
    )
    assert (kept.revision, kept.split_reason, kept.confidence) == (3, "grader_slip", "high")
    with pytest.raises(adjudication.AdjudicationError, match="the study's list"):
        adjudication.record_gold_verdict(
            item, first.pk, verdict="fail", note="", by=adjudicator, base_revision=3,
            split_reason="the moon",
        )  # fmt: skip


def test_the_agreement_page_sums_the_reasons_and_marks_an_unclear_criterion(make_user, client_as):
    task = factories.published_task()  # three responses to one task: the same criteria
    study = services.create_study(
        name="Reasons", framework=task.framework, annotators=[], overlap=1, likert_prompts=(),
        responses=[factories.response(task, model=f"model-{n}") for n in range(3)],
    )  # fmt: skip
    adjudicator = make_user(Role.MAINTAINER)
    items = list(study.items.order_by("pk"))
    code_of = {}
    for n, item in enumerate(items):
        first, second = [line.version for line in item.rubric_version.effective_rubric()][:2]
        code_of[first.criterion.code] = code_of[second.criterion.code] = None
        reasons = {first: "criterion_unclear", second: "grader_slip" if n else "response_ambiguous"}
        for version, reason in reasons.items():
            adjudication.record_gold_verdict(
                item, version.pk, verdict="pass", note="", by=adjudicator, base_revision=0,
                split_reason=reason, confidence="low" if n == 0 else "medium",
            )  # fmt: skip
    summaries = adjudication.split_reasons_per_criterion(study)
    unclear = [s for s in summaries if s.unclear]
    assert [dict(s.counts)["criterion_unclear"] for s in unclear] == [3] * len(unclear)
    assert all(not s.unclear for s in summaries if dict(s.counts)["criterion_unclear"] == 0)
    assert summaries[: len(unclear)] == unclear  # they come first
    assert unclear[0].low_confidence == 1

    page = client_as(Role.MAINTAINER).get(reverse("agreement:study", args=[study.pk]))
    body = page.content.decode()
    section = body[body.index('id="split-reasons"') :]
    section = section[: section.index("</section>")]
    assert "Criterion unclear" in section and "Grader slip" in section
    assert section.count('class="unclear-criterion"') == len(unclear) >= 1
    # The criterion's page of disagreements says the same for it.
    code = unclear[0].code
    assert f"?criterion={code}" in section
    listed = client_as(Role.MAINTAINER).get(
        reverse("grading:adjudication", args=[study.pk]), {"criterion": code}
    )
    line = listed.content.decode()
    line = line[line.index('id="criterion-split-reasons"') :]
    line = line[: line.index("</p>")]
    assert "Criterion unclear <strong>3</strong>" in line and "Mostly unclear" in line
    assert "<strong>3</strong>. Mostly unclear" in line  # no comma after the last reason given


def test_the_adjudication_form_records_the_reason_and_the_confidence(client_as, make_user):
    graders = [make_user(Role.ANNOTATOR) for _ in range(2)]
    study = factories.study(graders, responses=1, overlap=2)
    services.assign_study(study)
    for grader, verdict in zip(graders, ("pass", "fail"), strict=True):
        assignment = services.claim_next(study, grader)
        factories.complete(assignment, grader, verdict)
        services.submit(assignment, by=grader)
    pair = adjudication.next_unresolved(study)
    url = reverse("grading:adjudicate", args=[study.pk, pair["item"], pair["version"]])
    client = client_as(Role.MAINTAINER)
    form = client.get(url).content.decode()
    assert "Why the experts split" in form and "Guidance missing" in form
    client.post(url, {"verdict": "fail", "note": "", "split_reason": "guidance_missing",
                      "confidence": "medium", "revision": 0})  # fmt: skip
    recorded = GoldVerdict.objects.get(study_item=pair["item"], criterion_version=pair["version"])
    assert (recorded.split_reason, recorded.confidence) == ("guidance_missing", "medium")


def test_a_study_keeps_its_own_reasons_and_a_built_in_one_by_its_label(client_as):
    study = factories.study([], responses=1, overlap=1)
    client = client_as(Role.MAINTAINER)
    client.post(
        reverse("grading:study_split_reasons", args=[study.pk]),
        {"reasons": "Criterion unclear\nTask badly translated\n\nTask badly translated"},
    )
    study.refresh_from_db()
    assert study.split_reasons == ["criterion_unclear", "Task badly translated"]
    page = client.get(reverse("grading:study_manage", args=[study.pk])).content.decode()
    assert "Criterion unclear\nTask badly translated</textarea>" in page


def _gold_source(make_user):
    earlier = factories.study([], responses=1, overlap=1)
    item = earlier.items.get()
    adjudicator = make_user(Role.MAINTAINER, "the-adjudicator")
    for n, line in enumerate(item.rubric_version.effective_rubric()):
        if line.applicable:
            adjudication.record_gold_verdict(
                item, line.version.pk, verdict="pass", by=adjudicator, base_revision=0,
                note="The response names the level." if n == 0 else "",
            )  # fmt: skip
    return item


def test_after_a_qualification_gold_check_its_grader_reads_where_they_differed_and_why(
    make_user,
):
    source = _gold_source(make_user)
    grader = make_user(Role.ANNOTATOR)
    study = factories.study(
        [grader], responses=2, overlap=1, qualification_items=1, qualification_accuracy=0.5,
        gold_rate=25,
    )  # fmt: skip
    gold.add_gold_checks(study, [source], by=None)
    services.assign_study(study)
    check = services.claim_next(study, grader)
    assert check.study_item.gold_source_id == source.pk
    first, *rest = factories.rubric_of(check)
    factories.complete(check, grader, "pass")
    services.save_grade(check, first.pk, verdict="fail", rationale="Too vague.", by=grader)
    client = Client()
    client.force_login(grader)
    page = client.get(reverse("grading:assignment", args=[check.pk])).content.decode()
    assert 'id="gold-feedback"' not in page  # nothing before submitting
    answer = client.post(reverse("grading:submit", args=[check.pk]))
    assert answer.url == reverse("grading:assignment", args=[check.pk])
    page = client.get(answer.url).content.decode()
    feedback = page[page.index('id="gold-feedback"') :]
    feedback = feedback[: feedback.index("</section>")]
    assert "You differed from the gold answer on 1 criterion" in feedback
    assert first.criterion.code in feedback
    # The wording keeps its own punctuation (it ends with a period), and the answers follow on
    # a line of their own: no ".:" where the two met.
    answers = "You chose <strong>Fail</strong>, the gold is <strong>Pass</strong>."
    assert f"{escape(first.wording)}<br>{answers}" in feedback
    assert not re.search(r"[.?!]:", feedback)
    assert "Why: The response names the level." in feedback
    assert "the-adjudicator" not in page and not any(v.criterion.code in feedback for v in rest)


def test_a_gold_check_past_the_qualification_round_stays_unannounced(make_user):
    source, other = _gold_source(make_user), _gold_source(make_user)
    grader = make_user(Role.ANNOTATOR)
    study = factories.study(
        [grader], responses=2, overlap=1, qualification_items=1, qualification_accuracy=0.5,
        gold_rate=50,
    )  # fmt: skip
    gold.add_gold_checks(study, [source, other], by=None)
    services.assign_study(study)
    while (assignment := services.claim_next(study, grader)) is not None:
        factories.complete(assignment, grader, "pass")
        services.submit(assignment, by=grader)
    checks = Assignment.objects.filter(
        annotator=grader, study_item__gold_source__isnull=False
    ).order_by("position")
    first, second = checks
    assert gold.qualification_feedback(first) is not None
    assert gold.qualification_feedback(second) is None
    assert Study.objects.get(pk=study.pk).qualification_items == 1
