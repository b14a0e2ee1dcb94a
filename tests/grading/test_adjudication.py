"""Adjudication services: which pairs disagree, and gold verdicts that never overwrite silently."""

import pytest

from accounts.roles import Role
from api.exceptions import exception_handler
from audit.models import AuditEvent
from grading import adjudication, services
from grading.adjudication import Filters
from grading.models import Assignment, GoldVerdict, GoldVerdictRevision, Grade
from l2annot.errors import status_for
from rubrics.models.criteria import Layer
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture
def graders(make_user):
    return [make_user(Role.ANNOTATOR) for _ in range(3)]


def test_pairs_whose_submitted_verdicts_differ_are_disagreements(graders):
    study = factories.graded_study(graders, ["pass", "pass", "fail"], responses=2)
    rows = list(adjudication.disagreements(study))
    assert len(rows) == 2 * 3  # every criterion of both responses
    assert {(r["passes"], r["fails"], r["nas"], r["graders"]) for r in rows} == {(2, 1, 0, 3)}
    assert all(r["gold"] is None for r in rows)


def test_unanimous_pairs_are_not_disagreements(graders):
    study = factories.graded_study(graders, ["pass", "pass", "pass"], responses=2)
    assert list(adjudication.disagreements(study)) == []


def test_draft_grades_do_not_count_as_disagreement(graders):
    study = factories.graded_study(graders[:2], ["pass", "pass"], responses=1)
    item = study.items.get()
    # a third grader has saved a differing verdict but not submitted
    extra = Assignment.objects.create(study_item=item, annotator=graders[2], position=1)
    version = factories.rubric_of(extra)[0]
    services.save_grade(extra, version.pk, verdict="fail", rationale="no", by=graders[2])
    assert list(adjudication.disagreements(study)) == []


def test_disagreements_filter_by_criterion_and_layer(graders):
    study = factories.graded_study(graders, ["pass", "fail", "na"], responses=2)
    code = next(iter(adjudication.disagreements(study)))["code"]
    by_code = list(adjudication.disagreements(study, Filters(criterion=code)))
    assert [r["code"] for r in by_code] == [code]
    assert len(list(adjudication.disagreements(study, Filters(layer=Layer.TASK)))) == 6
    assert list(adjudication.disagreements(study, Filters(layer=Layer.UNIVERSAL))) == []
    assert adjudication.disagreeing_codes(study) == sorted(
        {r["code"] for r in adjudication.disagreements(study)}
    )


def test_the_unresolved_count_is_the_disagreements_without_a_gold_verdict(graders, make_user):
    study = factories.graded_study(graders, ["pass", "pass", "fail"], responses=2)
    assert adjudication.unresolved_count(study) == 6
    item, version = first_pair(study)
    adjudication.record_gold_verdict(
        item, version, verdict="fail", note="", by=make_user(Role.MAINTAINER), base_revision=0
    )
    unanimous = factories.graded_study(graders, ["pass", "pass", "pass"], responses=1)
    [line, *_] = factories.rubric_of(Assignment.objects.filter(study_item__study=unanimous)[0])
    adjudication.request_adjudication(unanimous.items.get(), line.pk, reason="unclear", by=None)
    for one in (study, unanimous):
        rows = list(adjudication.disagreements(one))
        assert adjudication.unresolved_count(one) == sum(r["gold"] is None for r in rows)
    assert adjudication.unresolved_count(study) == 5
    assert adjudication.unresolved_count(unanimous) == 1
    assert adjudication.unresolved_count(study, Filters(layer=Layer.UNIVERSAL)) == 0


def test_unknown_layer_in_the_query_is_ignored():
    assert Filters.from_query({"layer": "bogus", "criterion": " t1-01 "}) == Filters("t1-01", "")


def first_pair(study):
    row = adjudication.next_unresolved(study)
    return study.items.get(pk=row["item"]), row["version"]


def test_recording_a_gold_verdict_resolves_the_pair_and_is_audited(graders, make_user):
    study = factories.graded_study(graders, ["pass", "fail", "fail"], responses=1)
    maintainer = make_user(Role.MAINTAINER)
    item, version = first_pair(study)
    gold = adjudication.record_gold_verdict(
        item, version, verdict="fail", note=" misses it ", by=maintainer, base_revision=0
    )
    assert (gold.verdict, gold.note, gold.revision, gold.by) == ("fail", "misses it", 1, maintainer)
    resolved = [r for r in adjudication.disagreements(study) if r["gold"]]
    assert [(r["item"], r["version"], r["gold"]) for r in resolved] == [(item.pk, version, "fail")]
    assert adjudication.next_unresolved(study)["version"] != version
    assert AuditEvent.objects.filter(
        object_id=str(gold.pk), kind=AuditEvent.Kind.CREATED, actor=maintainer
    ).exists()


def test_changing_a_gold_verdict_keeps_the_old_one(graders, make_user):
    study = factories.graded_study(graders, ["pass", "fail", "fail"], responses=1)
    first, second = make_user(Role.MAINTAINER), make_user(Role.ADMIN)
    item, version = first_pair(study)
    adjudication.record_gold_verdict(
        item, version, verdict="fail", note="a", by=first, base_revision=0
    )
    gold = adjudication.record_gold_verdict(
        item, version, verdict="pass", note="b", by=second, base_revision=1
    )
    assert (gold.verdict, gold.revision, gold.by) == ("pass", 2, second)
    [old] = GoldVerdictRevision.objects.filter(gold=gold)
    assert (old.revision, old.verdict, old.note, old.by, old.replaced_by) == (
        1,
        "fail",
        "a",
        first,
        second,
    )
    event = AuditEvent.objects.for_object(gold).get(kind=AuditEvent.Kind.UPDATED)
    assert event.changes == {"note": ["a", "b"], "verdict": ["fail", "pass"]}


def test_a_save_based_on_a_stale_revision_is_refused(graders, make_user):
    study = factories.graded_study(graders, ["pass", "fail", "fail"], responses=1)
    first, second = make_user(Role.MAINTAINER), make_user(Role.MAINTAINER)
    item, version = first_pair(study)
    adjudication.record_gold_verdict(
        item, version, verdict="fail", note="", by=first, base_revision=0
    )
    with pytest.raises(adjudication.StaleGoldVerdict) as refused:
        adjudication.record_gold_verdict(
            item, version, verdict="pass", note="", by=second, base_revision=0
        )
    assert refused.value.current.verdict == "fail"
    gold = GoldVerdict.objects.get()
    assert (gold.verdict, gold.revision) == ("fail", 1)
    assert not GoldVerdictRevision.objects.exists()


def test_saving_the_same_gold_verdict_again_makes_no_revision(graders, make_user):
    study = factories.graded_study(graders, ["pass", "fail", "fail"], responses=1)
    maintainer = make_user(Role.MAINTAINER)
    item, version = first_pair(study)
    adjudication.record_gold_verdict(
        item, version, verdict="na", note="x", by=maintainer, base_revision=0
    )
    gold = adjudication.record_gold_verdict(
        item, version, verdict="na", note="x ", by=maintainer, base_revision=1
    )
    assert gold.revision == 1
    assert not GoldVerdictRevision.objects.exists()


@pytest.mark.parametrize("verdict", ["", "maybe"])
def test_a_gold_verdict_must_be_pass_fail_or_na(graders, make_user, verdict):
    study = factories.graded_study(graders, ["pass", "fail", "fail"], responses=1)
    item, version = first_pair(study)
    with pytest.raises(adjudication.AdjudicationError):
        adjudication.record_gold_verdict(
            item, version, verdict=verdict, note="", by=make_user(Role.ADMIN), base_revision=0
        )
    assert not GoldVerdict.objects.exists()


def test_a_criterion_outside_the_items_rubric_takes_no_gold_verdict(graders, make_user):
    study = factories.graded_study(graders, ["pass", "fail", "fail"], responses=2)
    first, second = study.items.order_by("pk")
    foreign = factories.rubric_of(Assignment.objects.filter(study_item=second).first())[0]
    with pytest.raises(adjudication.AdjudicationError):
        adjudication.record_gold_verdict(
            first, foreign.pk, verdict="pass", note="", by=make_user(Role.ADMIN), base_revision=0
        )
    assert not Grade.objects.filter(criterion_version=foreign, assignment__study_item=first)


def test_changing_a_gold_verdict_removed_meanwhile_is_a_conflict(graders, make_user):
    study = factories.graded_study(graders, ["pass", "fail", "fail"], responses=1)
    item, version = first_pair(study)
    with pytest.raises(adjudication.GoldVerdictGone) as refused:
        adjudication.record_gold_verdict(
            item, version, verdict="pass", note="", by=make_user(Role.MAINTAINER), base_revision=1
        )
    assert status_for(refused.value) == 409
    answer = exception_handler(refused.value, {})
    assert answer is not None and answer.status_code == 409
    assert answer.data == {"detail": "This gold verdict no longer exists; reload the page."}
    assert not GoldVerdict.objects.exists()


def test_the_cached_summary_follows_changed_grades_and_requests(graders, make_user):
    study = factories.graded_study(graders, ["pass", "pass", "fail"], responses=2)
    assert adjudication.disagreement_summary(study)[0] == 6  # now cached
    # The dissenter changes a submitted verdict on each response to agree: those pairs leave.
    agreed = []
    for dissent in Assignment.objects.filter(study_item__study=study, annotator=graders[2]):
        version = factories.rubric_of(dissent)[0]
        services.save_grade(dissent, version.pk, verdict="pass", rationale="ok", by=graders[2])
        agreed.append((dissent.study_item, version))
    assert adjudication.disagreement_summary(study)[0] == 4
    # A maintainer sends one unanimous pair to adjudication, takes it back, sends the other:
    # as many requests as before, but another pair.
    maintainer = make_user(Role.MAINTAINER)
    (first_item, first), (second_item, second) = agreed
    adjudication.request_adjudication(first_item, first.pk, reason="check", by=maintainer)
    count, codes = adjudication.disagreement_summary(study)
    assert count == 5 and first.criterion.code in codes
    assert adjudication.withdraw_request(first_item, first.pk, by=maintainer)
    adjudication.request_adjudication(second_item, second.pk, reason="check", by=maintainer)
    count, codes = adjudication.disagreement_summary(study)
    assert count == 5 and second.criterion.code in codes and first.criterion.code not in codes
