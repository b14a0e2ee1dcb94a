"""Flags: raised by a grader (blind to other graders' flags), a response set aside and returned
or given to another grader, resolved by a maintainer with a note in the history, and an unclear
criterion opening the draft of its next version."""

import pytest
from django.core.exceptions import ValidationError
from django.utils import translation

from accounts.models import User
from accounts.roles import Role
from accounts.services import create_user_with_role, sync_roles
from audit.models import AuditEvent
from core.refusals import Conflict
from grading import flags, services
from grading.models import Assignment, Flag, Grade, PoolMember, Study
from rubrics.models import CriterionVersion
from tests import factories

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def world(module_db: None) -> dict[str, int]:
    """Two responses, k=2, annotators ana and ben assigned, carl in the pool with nothing."""
    sync_roles()
    ana, ben, carl = (create_user_with_role(n, "pw", Role.ANNOTATOR) for n in ("ana", "ben", "cy"))
    boss = create_user_with_role("boss", "pw", Role.MAINTAINER)
    study = factories.study([ana, ben], responses=2, overlap=2, seed=1)
    services.assign_study(study)
    PoolMember.objects.create(study=study, annotator=carl)  # joins after the plan
    return {"study": study.pk, "ana": ana.pk, "ben": ben.pk, "carl": carl.pk, "boss": boss.pk}


@pytest.fixture
def people(world) -> dict[str, User]:
    return {name: User.objects.get(pk=world[name]) for name in ("ana", "ben", "carl", "boss")}


@pytest.fixture
def study(world) -> Study:
    return Study.objects.get(pk=world["study"])


def first_of(study: Study, user: User) -> Assignment:
    return Assignment.objects.filter(study_item__study=study, annotator=user).order_by("pk")[0]


def test_a_skipped_response_leaves_the_queue_and_takes_no_grade(study, people):
    ana = people["ana"]
    mine = first_of(study, ana)
    version = factories.rubric_of(mine)[0]
    services.save_grade(mine, version.pk, verdict="pass", rationale="", by=ana)
    flag = flags.raise_flag(
        mine,
        kind=Flag.Kind.CRITERION_UNCLEAR,
        comment="  Which register counts?  ",
        criterion_version_id=version.pk,
        skip=True,
        by=ana,
    )
    assert flag.comment == "Which register counts?" and flag.is_open
    claimed = services.claim_next(study, ana)
    assert claimed is not None and claimed.pk != mine.pk
    with pytest.raises(services.SetAside):
        services.save_grade(mine, version.pk, verdict="fail", rationale="x", by=ana)
    queue = {row.study.pk: row for row in services.annotator_queue(ana)}[study.pk]
    assert (queue.total, queue.skipped, queue.left) == (2, 1, 1)
    factories.complete(claimed, ana)
    services.submit(claimed, by=ana)
    assert services.claim_next(study, ana) is None
    assert "set aside with a flag" in services.why_nothing_to_grade(study, ana)
    [event] = AuditEvent.objects.for_object(flag)
    assert event.changes["skipped"] == [None, True]


def test_a_grader_reads_only_their_own_flags(study, people):
    ana, ben = people["ana"], people["ben"]
    item = first_of(study, ana).study_item
    theirs = item.assignments.get(annotator=ben)
    flags.raise_flag(first_of(study, ana), kind="response_broken", comment="", by=ana)
    assert not flags.flags_of(theirs).exists()
    flags.raise_flag(theirs, kind="other", comment="Cut off mid-sentence.", by=ben)
    assert [f.comment for f in flags.flags_of(theirs)] == ["Cut off mid-sentence."]


@pytest.mark.parametrize(
    ("kind", "comment", "on_criterion", "field"),
    [
        ("other", " ", False, "comment"),
        ("criterion_unclear", "?", False, "criterion_version"),
        ("nonsense", "?", False, "kind"),
    ],
)
def test_a_flag_missing_what_it_needs_is_refused_naming_the_field(
    study, people, kind, comment, on_criterion, field
):
    with pytest.raises(ValidationError) as refused:
        flags.raise_flag(
            first_of(study, people["ana"]), kind=kind, comment=comment, by=people["ana"]
        )
    assert field in refused.value.message_dict
    assert not Flag.objects.exists()


def test_the_same_flag_twice_while_open_and_a_criterion_of_another_rubric_are_refused(
    study, people
):
    ana = people["ana"]
    mine, other = Assignment.objects.filter(annotator=ana, study_item__study=study)[:2]
    flags.raise_flag(mine, kind="response_broken", comment="", by=ana)
    with pytest.raises(flags.AlreadyFlagged):
        flags.raise_flag(mine, kind="other", comment="again", by=ana)
    elsewhere = factories.rubric_of(other)[0]
    with pytest.raises(ValidationError):
        flags.raise_flag(
            mine, kind="criterion_unclear", comment="", criterion_version_id=elsewhere.pk, by=ana
        )


def test_a_submitted_response_can_be_flagged_but_not_set_aside(study, people):
    ana = people["ana"]
    mine = first_of(study, ana)
    factories.complete(mine, ana)
    services.submit(mine, by=ana)
    with pytest.raises(flags.CannotSetAside):
        flags.raise_flag(mine, kind="response_broken", comment="", skip=True, by=ana)
    assert flags.raise_flag(mine, kind="response_broken", comment="", by=ana).skipped is False


def skipped_flag(study, people) -> tuple[Flag, Assignment]:
    ana = people["ana"]
    mine = first_of(study, ana)
    factories.complete(mine, ana)  # drafts
    flag = flags.raise_flag(mine, kind="response_broken", comment="Empty", skip=True, by=ana)
    return flag, mine


def test_returning_a_skipped_response_puts_it_back_in_its_graders_queue(study, people):
    flag, mine = skipped_flag(study, people)
    with pytest.raises(ValidationError) as refused:
        flags.resolve_flag(flag, note="Looked at it", by=people["boss"])
    assert "outcome" in refused.value.message_dict
    resolved = flags.resolve_flag(flag, note="It is fine", outcome="returned", by=people["boss"])
    assert (resolved.status, resolved.resolved_by, resolved.outcome) == (
        "resolved",
        people["boss"],
        "returned",
    )
    assert services.claim_next(study, people["ana"]).pk == mine.pk
    event = AuditEvent.objects.for_object(flag).order_by("at", "pk").last()
    assert event.comment == "It is fine" and event.changes["status"] == ["open", "resolved"]
    with pytest.raises(flags.FlagClosed):
        flags.resolve_flag(flag, note="again", outcome="returned", by=people["boss"])


def test_a_skipped_response_given_to_another_grader_keeps_its_k_graders(study, people):
    flag, mine = skipped_flag(study, people)
    item = mine.study_item
    assert flags.reassign_candidates(study, [flag]) == {flag.pk: [people["carl"]]}
    with pytest.raises(ValidationError):  # ben grades it already
        flags.resolve_flag(
            flag, note="n", outcome="reassigned", reassign_to=people["ben"], by=people["boss"]
        )
    flags.resolve_flag(
        flag,
        note="Give it to cy",
        outcome="reassigned",
        reassign_to=people["carl"],
        by=people["boss"],
    )
    assert sorted(item.assignments.values_list("annotator__username", flat=True)) == ["ben", "cy"]
    assert not Grade.objects.filter(assignment=mine.pk).exists()
    assert services.claim_next(study, people["carl"]).study_item_id == item.pk


def test_an_unclear_criterion_opens_the_draft_of_its_next_version(study, people):
    ana = people["ana"]
    mine = first_of(study, ana)
    version = factories.rubric_of(mine)[0]
    flag = flags.raise_flag(
        mine, kind="criterion_unclear", comment="Vague", criterion_version_id=version.pk, by=ana
    )
    with pytest.raises(ValidationError):  # nothing was set aside
        flags.resolve_flag(flag, note="n", outcome="returned", by=people["boss"])
    resolved = flags.resolve_flag(flag, note="Reword it", open_draft=True, by=people["boss"])
    draft = CriterionVersion.objects.get(pk=resolved.draft_id)
    assert (draft.criterion_id, draft.number, draft.frozen) == (version.criterion_id, 2, False)
    assert draft.wording == version.wording
    event = AuditEvent.objects.for_object(version.criterion).latest("pk")
    assert event.comment == "version 2 created: flagged criterion unclear: Reword it"
    with translation.override("es"):  # the criterion's history, in the reader's language
        assert event.shown_comment == (
            "versión 2 creada: señalado como criterio poco claro: Reword it"
        )
        event.message = {}  # as stored before messages: its English alone
        assert event.shown_comment == (
            "versión 2 creada: señalado como criterio poco claro: Reword it"
        )


def test_open_flags_are_grouped_per_criterion_and_per_response(study, people):
    ana, ben = people["ana"], people["ben"]
    mine = first_of(study, ana)
    theirs = mine.study_item.assignments.get(annotator=ben)
    version = factories.rubric_of(mine)[0]
    for assignment, user in ((mine, ana), (theirs, ben)):
        flags.raise_flag(
            assignment,
            kind="criterion_unclear",
            comment="",
            criterion_version_id=version.pk,
            by=user,
        )
    flags.raise_flag(mine, kind="response_broken", comment="", by=ana)
    grouped = flags.open_flags(study)
    assert [(g.key, len(g.flags)) for g in grouped.by_criterion] == [
        (version.criterion.code, 2),
        ("", 1),
    ]
    assert [len(g.flags) for g in grouped.by_response] == [3]
    assert flags.open_flag_counts() == [(study.pk, study.name, 3)]


def test_a_closed_study_takes_no_flag(study, people):
    services.set_status(study, Study.Status.CLOSED)
    with pytest.raises(Conflict):
        flags.raise_flag(
            first_of(study, people["ana"]), kind="response_broken", comment="", by=people["ana"]
        )
