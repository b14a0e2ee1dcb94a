"""What a maintainer does with one of a judge run's disagreements with the experts (the triage
page): `resolve` in one transaction, through the services of the app that owns what it changes
(rubrics for a criterion's next version, grading for adjudication), `reopen` to undo it, and the
counts of each kind of resolution per run."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.db.models import Count
from django.utils.translation import gettext

from accounts.models import User
from audit import services as audit
from audit.models import AuditEvent
from core.messages import gettext_noop
from core.refusals import Conflict, NotFound
from grading import adjudication
from grading.models import Study, StudyItem
from judging.models import (
    JudgeRun,
    JudgeVerdict,
    TriageResolution,
)
from rubrics import services as rubrics
from rubrics.models import CriterionVersion

MAX_CONNECTIONS = 10

Kind = TriageResolution.Kind


class AlreadyResolved(Conflict):
    def __init__(self, found: TriageResolution) -> None:
        super().__init__(
            gettext("This disagreement was resolved meanwhile: %(resolution)s.")
            % {"resolution": found.get_kind_display()}
        )
        self.found = found


class NotJudged(NotFound):
    def __init__(self) -> None:
        super().__init__(gettext("This run gave no verdict on this response and criterion."))


@transaction.atomic
def resolve(
    run: JudgeRun,
    study_item: StudyItem,
    criterion_version: CriterionVersion,
    *,
    kind: str,
    note: str,
    by: User,
) -> TriageResolution:
    """Resolve one disagreement of `run` on a (study item, criterion version) unit.

    "ambiguous" opens the draft of the criterion's next version (prefilled with the version
    the experts graded) and links it; "judge_error" keeps the note on the run's prompt version
    (on the run when it has none) and needs a note; "experts_wrong" sends the unit to
    adjudication. A unit is resolved once per run (AlreadyResolved)."""
    note = note.strip()
    if kind not in Kind.values:
        raise ValidationError({"kind": gettext("Choose how this disagreement is resolved.")})
    if kind == Kind.JUDGE_ERROR and not note:
        raise ValidationError(
            {"note": gettext("Say what the judge got wrong: the note is for the prompt.")}
        )
    judged = JudgeVerdict.objects.per_response().filter(
        run=run, response_id=study_item.response_id, criterion_version=criterion_version
    )
    if not judged.exists():
        raise NotJudged()
    existing = TriageResolution.objects.filter(
        run=run, response_id=study_item.response_id, criterion_version=criterion_version
    ).first()
    if existing is not None:
        raise AlreadyResolved(existing)
    resolution = TriageResolution(
        run=run,
        prompt_id=run.prompt_id,
        response_id=study_item.response_id,
        criterion_version=criterion_version,
        kind=kind,
        note=note,
        by=by,
    )
    reason = note or DISAGREED.fill(run=str(run))
    if kind == Kind.AMBIGUOUS:
        resolution.draft = rubrics.open_draft_version(
            criterion_version.criterion, by, reason=FOUND_AMBIGUOUS.fill(reason=reason)
        )
    elif kind == Kind.EXPERTS_WRONG:
        adjudication.request_adjudication(
            study_item, criterion_version.pk, reason=f"The experts may be wrong: {reason}", by=by
        )
    try:
        with transaction.atomic():
            resolution.save()
    except IntegrityError:  # resolved by someone else between our read and write
        raise AlreadyResolved(
            TriageResolution.objects.get(
                run=run, response_id=study_item.response_id, criterion_version=criterion_version
            )
        ) from None
    audit.record_creation(resolution, ["kind", "note"], actor=by)
    return resolution


class NotResolved(Conflict):
    def __init__(self) -> None:
        super().__init__(gettext("This disagreement is not resolved: it was reopened meanwhile."))


def still_requested(study_item: StudyItem, criterion_version_id: int) -> bool:
    """Whether a judge run's resolution ("the experts were wrong") sends the pair's response
    and criterion version to adjudication."""
    return TriageResolution.objects.filter(
        kind=TriageResolution.Kind.EXPERTS_WRONG,
        response_id=study_item.response_id,
        criterion_version_id=criterion_version_id,
    ).exists()


# What a resolution's history says as it is reopened, and why a criterion found ambiguous has
# a new version (judging.apps registers them).
REOPENED = gettext_noop("Triage resolution reopened.")
DISAGREED = gettext_noop("Judge run %(run)s disagreed with the experts.")
FOUND_AMBIGUOUS = gettext_noop("found ambiguous: %(reason)s")


@transaction.atomic
def reopen(
    run: JudgeRun, study_item: StudyItem, criterion_version: CriterionVersion, *, by: User
) -> list[str]:
    """Undo the resolution of one of `run`'s disagreements, which goes back to the queue.

    The resolution is deleted, its kind, note and draft kept in the history. What it did
    elsewhere is undone only where nobody has built on it: the adjudication request of "the
    experts were wrong" is withdrawn while the unit awaits adjudication (a gold verdict, once
    recorded, stands); the criterion draft of "ambiguous" stays a draft, to be edited or
    deleted on the criterion's page. Returns what happened, in words."""
    resolution = (
        TriageResolution.objects.select_for_update(of=("self",))
        .filter(run=run, response_id=study_item.response_id, criterion_version=criterion_version)
        .first()
    )
    if resolution is None:
        raise NotResolved()
    done = [
        gettext("Reopened: “%(kind)s” is undone (kept in the history).")
        % {"kind": resolution.get_kind_display()}
    ]
    audit.record(
        resolution,
        AuditEvent.Kind.DELETED,
        by,
        {
            field: [value, None]
            for field, value in audit.snapshot(resolution, ["kind", "note", "draft"]).items()
        },
        comment=REOPENED,
    )
    resolution.delete()  # first: what it did elsewhere is undone only if nothing else needs it
    if resolution.kind == Kind.EXPERTS_WRONG:

        def wanted() -> bool:
            return still_requested(study_item, criterion_version.pk)

        if adjudication.withdraw_request(
            study_item, criterion_version.pk, by=by, still_wanted=wanted
        ):
            done.append(gettext("The adjudication request is withdrawn."))
        elif wanted():
            done.append(
                gettext(
                    "Another judge run's resolution still sends the unit to adjudication: the "
                    "request stays."
                )
            )
        else:
            done.append(gettext("The unit was already adjudicated: its gold verdict stands."))
    elif resolution.kind == Kind.AMBIGUOUS and resolution.draft_id is not None:
        done.append(
            gettext(
                "The draft of the criterion's next version stays a draft: edit or delete it on "
                "the criterion's page."
            )
        )
    elif resolution.kind == Kind.JUDGE_ERROR:
        done.append(gettext("The note on the prompt version goes with it (kept in the history)."))
    return done


@dataclass(frozen=True)
class ResolutionCounts:
    """Resolutions of the chosen runs on a study's units: (label, counts in the order of
    `kinds`) rows."""

    by_criterion: list[tuple[str, list[int]]]
    by_prompt: list[tuple[str, list[int]]]

    @property
    def kinds(self) -> list[str]:
        return [str(label) for _, label in Kind.choices]


def _rows(counts: dict[str, Counter[str]]) -> list[tuple[str, list[int]]]:
    return [
        (label, [found[kind] for kind in Kind.values]) for label, found in sorted(counts.items())
    ]


def resolution_counts(study: Study, runs: Sequence[JudgeRun]) -> ResolutionCounts:
    """How the chosen runs' disagreements on `study` were resolved, per criterion and per
    prompt version (the run's label when it has no prompt version). One query."""
    rows = (
        TriageResolution.objects.filter(
            run__in=[run.pk for run in runs],
            response__in=StudyItem.objects.filter(study=study).values("response"),
        )
        .values(
            "criterion_version__criterion__code",
            "prompt__template__name",
            "prompt__number",
            "run__prompt_version",
            "kind",
        )
        .annotate(n=Count("pk"))
        .order_by()
    )
    criteria: dict[str, Counter[str]] = {}
    prompts: dict[str, Counter[str]] = {}
    for row in rows:
        if row["prompt__template__name"]:
            prompt = f"{row['prompt__template__name']}@{row['prompt__number']}"
        else:
            prompt = row["run__prompt_version"] or "no prompt version"
        code = row["criterion_version__criterion__code"]
        criteria.setdefault(code, Counter())[row["kind"]] += row["n"]
        prompts.setdefault(prompt, Counter())[row["kind"]] += row["n"]
    return ResolutionCounts(_rows(criteria), _rows(prompts))
