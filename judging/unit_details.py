"""One triage unit at a time: a response x criterion with every expert's grade and the judge's
verdict (the triage page), read from the same database as the reports (`reports_alias`)."""

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from agreement.data.experts import submitted_grades
from grading.models import Assignment, Study, StudyItem, TurnGrade
from judging.models import JudgeRun, JudgeVerdict
from l2annot.db_routers import reports_alias
from rubrics.models import CriterionVersion


@dataclass(frozen=True)
class ExpertGrade:
    expert: str  # "Expert A", "Expert B", ... in a stable order for the study
    verdict: str
    rationale: str


@dataclass(frozen=True)
class TurnLine:
    """One tutor turn of a dialogue on a turn-level criterion: the judge's verdict on it and
    the experts' grades of it, so a maintainer sees which turn a disagreement comes from."""

    index: int  # the turn's index in the dialogue (shown as "Turn index + 1")
    judge: bool | None  # None: no verdict (not judged, or the answer could not be read)
    experts: tuple[tuple[str, str], ...]  # (expert, verdict) in the study's expert order

    @property
    def number(self) -> int:
        return self.index + 1

    @property
    def majority(self) -> str:
        """The experts' strict majority of pass and fail on the turn, "" when none."""
        votes = [verdict for _, verdict in self.experts]
        passes, fails = votes.count("pass"), votes.count("fail")
        return "pass" if passes > fails else "fail" if fails > passes else ""

    @property
    def disagrees(self) -> bool:
        return (
            self.judge is not None
            and self.majority != ""
            and (self.majority != ("pass" if self.judge else "fail"))
        )


@dataclass(frozen=True)
class UnitDetail:
    """What a maintainer reads to resolve one triage unit."""

    study_item: StudyItem  # with its response (and turns) and task
    criterion_version: CriterionVersion  # with its criterion
    experts: tuple[ExpertGrade, ...]
    judge_rationale: str
    turns: tuple[TurnLine, ...] = ()  # a turn-level criterion on a dialogue: turn by turn
    judge_pass_probability: float | None = None  # as the judge stated it, where it did


def expert_label(n: int) -> str:
    """ "Expert A" for 0, ... "Expert Z", then "Expert 27" and on."""
    return f"Expert {chr(ord('A') + n)}" if n < 26 else f"Expert {n + 1}"


def load_unit_details(
    study: Study, run: JudgeRun, pairs: Sequence[tuple[int, int]]
) -> list[UnitDetail]:
    """For each (study item, criterion version) pair: the response, the criterion, every
    submitted grade with its rationale under an anonymous name, and the judge's output.
    On a turn-level criterion, each tutor turn with the judge's verdict on it and the
    experts' grades of it. Five queries, whatever the number of pairs, and two more when a
    pair's criterion is turn-level."""
    db = reports_alias()
    item_ids = {item for item, _ in pairs}
    version_ids = {version for _, version in pairs}
    items = (
        StudyItem.objects.using(db)
        .filter(pk__in=item_ids, study=study)
        .select_related("response__task")
        .prefetch_related("response__turns")
    )
    by_item = {item.pk: item for item in items}
    versions = CriterionVersion.objects.using(db).filter(pk__in=version_ids)
    by_version = {v.pk: v for v in versions.select_related("criterion")}
    graders = list(
        submitted_grades(study, db)
        .order_by("assignment__annotator_id")
        .values_list("assignment__annotator_id", flat=True)
        .distinct()
    )
    label = {pk: expert_label(n) for n, pk in enumerate(graders)}
    grades: dict[tuple[int, int], list[ExpertGrade]] = {}
    rows = (
        submitted_grades(study, db)
        .filter(assignment__study_item_id__in=item_ids, criterion_version_id__in=version_ids)
        .values_list(
            "assignment__study_item_id",
            "criterion_version_id",
            "assignment__annotator_id",
            "verdict",
            "rationale",
        )
    )
    for item, version, annotator, verdict, rationale in rows:
        grades.setdefault((item, version), []).append(
            ExpertGrade(label[annotator], verdict, rationale)
        )
    verdicts = (
        JudgeVerdict.objects.using(db)
        .per_response()
        .filter(
            run=run.pk,
            epoch=1,
            response_id__in=[item.response_id for item in by_item.values()],
            criterion_version_id__in=version_ids,
        )
    )
    said = {
        (response, version): (rationale, probability)
        for response, version, rationale, probability in verdicts.values_list(
            "response_id", "criterion_version_id", "rationale", "pass_probability"
        )
    }
    per_turn = {pk for pk, version in by_version.items() if version.per_turn}
    turns = _turn_lines(study, run, by_item, per_turn, label, db) if per_turn else {}
    details = []
    for item, version in pairs:
        if item not in by_item or version not in by_version:
            continue
        rationale, probability = said.get((by_item[item].response_id, version), ("", None))
        details.append(
            UnitDetail(
                study_item=by_item[item],
                criterion_version=by_version[version],
                experts=tuple(sorted(grades.get((item, version), []), key=lambda g: g.expert)),
                judge_rationale=rationale,
                turns=turns.get((item, version), ()),
                judge_pass_probability=probability,
            )
        )
    return details


def _turn_lines(
    study: Study,
    run: JudgeRun,
    by_item: dict[int, StudyItem],
    versions: set[int],
    label: dict[int, str],
    db: str,
) -> dict[tuple[int, int], tuple[TurnLine, ...]]:
    """(study item, criterion version) -> its tutor turns, each with the judge's first-epoch
    verdict and the experts' submitted grades. Two queries."""
    item_of = {item.response_id: pk for pk, item in by_item.items()}
    judge = {
        (turn, version): verdict
        for turn, version, verdict in JudgeVerdict.objects.using(db)
        .per_turn()
        .filter(run=run.pk, epoch=1, response_id__in=item_of, criterion_version_id__in=versions)
        .values_list("turn_id", "criterion_version_id", "verdict")
    }
    grades: dict[tuple[int, int, int, int], list[tuple[str, str]]] = defaultdict(list)
    for item, version, turn, index, annotator, verdict in (
        TurnGrade.objects.using(db)
        .filter(
            assignment__study_item__study=study,
            assignment__study_item_id__in=by_item,
            assignment__status=Assignment.Status.SUBMITTED,
            criterion_version_id__in=versions,
        )
        .exclude(verdict="")
        .values_list(
            "assignment__study_item_id",
            "criterion_version_id",
            "turn_id",
            "turn__index",
            "assignment__annotator_id",
            "verdict",
        )
    ):
        grades[item, version, turn, index].append((label.get(annotator, "?"), verdict))
    lines: dict[tuple[int, int], list[TurnLine]] = defaultdict(list)
    for (item, version, turn, index), experts in sorted(grades.items(), key=lambda g: g[0][3]):
        lines[item, version].append(
            TurnLine(index, judge.get((turn, version)), tuple(sorted(experts)))
        )
    return {key: tuple(found) for key, found in lines.items()}
