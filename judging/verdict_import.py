"""Import LLM-judge verdicts (JSONL, or an Inspect AI .eval log with its responses) into the
judging app. All or nothing.

A verdict is stored against the response's current version, or the version it names
(`response_version`: a judge run on a study judges the version the study grades, which a newer
one may have followed), and against the criterion version the judge saw: the one in the task's
latest published rubric when the criterion is there, else the criterion's latest version. A verdict
naming a criterion the framework does not have, or one outside the response's task's rubric, is
a problem; so is a `weight` that differs from that version's weight.

A 1-5 rating (a line with `question` and `score`) is stored by its question key, which must be
the key of a rating question of a study of the framework (a study compares the judge's ratings
with its experts' on the question of that key).
"""

from __future__ import annotations

import dataclasses
import zipfile
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from accounts.models import User
from core.formats.inspect_eval import read_inspect_eval
from core.formats.problems import Problem, gettext_noop
from core.formats.responses import ResponseRecord
from core.formats.verdicts import RatingRecord, VerdictRecord, read_verdicts_jsonl
from core.scoring import turn_outcome
from grading.models import LikertItem
from interchange.importers.report import ImportReport, Progress, no_progress
from interchange.importers.responses import ResponsePlan, ResponsesPlanner, write_responses
from interchange.importers.writing import BATCH
from judging.models import JudgeRating, JudgeRun, JudgeVerdict
from judging.output import stored_output
from l2annot.bulk_insert import insert
from rubrics.models import (
    Criterion,
    CriterionVersion,
    Layer,
    Response,
    RubricItem,
    RubricVersion,
    Task,
    Turn,
)
from taxonomy.models import Framework

RunKey = tuple[str, str, str]
# A response as the verdicts name it before it is written: (task id, external id, version),
# the version None for the current one.
ResponseKey = tuple[int, str, int | None]


@dataclass
class VerdictPlan:
    record: VerdictRecord
    run: RunKey
    response: ResponseKey
    version: CriterionVersion


@dataclass
class RatingPlan:
    record: RatingRecord
    run: RunKey
    response: ResponseKey


@dataclass
class JudgeFile:
    """What a verdicts file holds: responses (from an .eval log only), verdicts, 1-5 ratings."""

    responses: Sequence[ResponseRecord]
    verdicts: Sequence[VerdictRecord]
    ratings: Sequence[RatingRecord]
    problems: list[Problem]


def read_verdict_file(path: Path, judge_model: str | None) -> JudgeFile:
    """The responses, verdicts, ratings and problems of a JSONL or .eval file."""
    if path.suffix.lower() == ".eval" or zipfile.is_zipfile(path):
        log = read_inspect_eval(
            path,
            judge_model=judge_model,
            max_member_bytes=settings.IMPORT_MAX_JSON_MEMBER_BYTES,
            max_kept_chars=settings.IMPORT_MAX_EVAL_TEXT_CHARS,
        )
        return JudgeFile(log.responses, log.verdicts, (), list(log.problems))
    verdicts_file = read_verdicts_jsonl(path)
    return JudgeFile(
        (), verdicts_file.verdicts, verdicts_file.ratings, list(verdicts_file.problems)
    )


class VerdictsPlanner:
    def __init__(
        self,
        framework: Framework,
        file_name: str,
        report: ImportReport,
        responses: list[ResponsePlan],
    ) -> None:
        self.framework = framework
        self.file_name = file_name
        self.report = report
        self.tasks = {task.key: task for task in Task.objects.filter(framework=framework)}
        self.criteria = {c.code: c for c in Criterion.objects.filter(framework=framework)}
        # Every response the verdicts may name: the current versions in the database and
        # those being imported (which become the current version of their id), by id and by
        # task, model and epoch.
        self.by_id: dict[str, set[ResponseKey]] = defaultdict(set)
        self.by_epoch: dict[tuple[int, str, int], set[ResponseKey]] = defaultdict(set)
        importing = {(plan.task.pk, plan.external_id) for plan in responses}
        existing = (
            Response.objects.current()
            .filter(task__framework=framework)
            .exclude(external_id="")
            .only("task_id", "external_id", "model_name", "epoch", "version")
        )
        self.current_version: dict[tuple[int, str], int] = {}
        for response in existing:
            self.current_version[(response.task_id, response.external_id)] = response.version
            if (response.task_id, response.external_id) not in importing:
                self.index(
                    response.task_id, response.external_id, response.model_name, response.epoch
                )
        for plan in responses:
            self.index(plan.task.pk, plan.external_id, plan.record.model, plan.record.epoch)
        self.importing = importing
        self._versions: dict[tuple[int, str], list[int]] | None = None

    def index(self, task_id: int, external_id: str, model: str, epoch: int) -> None:
        self.by_id[external_id].add((task_id, external_id, None))
        self.by_epoch[(task_id, model, epoch)].add((task_id, external_id, None))

    def versions(self) -> dict[tuple[int, str], list[int]]:
        """Every stored version number of each response id of the framework (read once, when a
        verdict names a version)."""
        if self._versions is None:
            self._versions = defaultdict(list)
            rows = (
                Response.objects.filter(task__framework=self.framework)
                .exclude(external_id="")
                .order_by("version")
                .values_list("task_id", "external_id", "version")
            )
            for task_id, external_id, version in rows:
                self._versions[(task_id, external_id)].append(version)
        return self._versions

    def problem(
        self, record: VerdictRecord | RatingRecord, field: str | None, message: str
    ) -> None:
        self.report.problems.append(Problem(self.file_name, record.line or None, field, message))

    def plan(self, records: Sequence[VerdictRecord]) -> list[VerdictPlan]:
        found = [(record, self.resolve_response(record)) for record in records]
        task_ids = {key[0] for _, key in found if key is not None}
        published = self.published_versions(task_ids)
        latest = self.latest_versions()
        tasks_by_id = {task.pk: task for task in self.tasks.values()}
        plans: list[VerdictPlan] = []
        seen: dict[tuple[RunKey, ResponseKey, int, int, int | None], str] = {}
        for record, response in found:
            criterion = self.criteria.get(record.criterion_id)
            if criterion is None:
                self.problem(
                    record,
                    "criterion_id",
                    gettext_noop(
                        "no criterion '%(criterion_id)s' in framework '%(code)s'",
                        criterion_id=record.criterion_id,
                        code=self.framework.code,
                    ),
                )
                continue
            if response is None:
                continue
            task = tasks_by_id[response[0]]
            if not applies(criterion, task):
                self.problem(
                    record,
                    "criterion_id",
                    gettext_noop(
                        "criterion '%(code)s' is not in the rubric of task '%(key)s'",
                        code=criterion.code,
                        key=task.key,
                    ),
                )
                continue
            version = published.get((task.pk, criterion.pk)) or cast(
                CriterionVersion,
                latest.get(criterion.pk),  # every criterion has a version
            )
            if record.weight is not None and record.weight != version.weight:
                self.problem(
                    record,
                    "weight",
                    gettext_noop(
                        "the judge saw weight %(seen)s, but criterion '%(code)s' has weight "
                        "%(weight)s (version %(number)s)",
                        seen=record.weight,
                        code=criterion.code,
                        weight=version.weight,
                        number=version.number,
                    ),
                )
                continue
            mismatch = _answer_mismatch(record, version, criterion.code)
            if mismatch:
                self.problem(record, "judgement", mismatch)
                continue
            run = record.run_key
            identity = (run, response, version.pk, record.epoch, record.turn)
            if identity in seen:
                self.problem(
                    record,
                    None,
                    gettext_noop(
                        "a second verdict for the same response, criterion, epoch and run "
                        "(first at %(seen)s)",
                        seen=seen[identity],
                    ),
                )
                continue
            seen[identity] = (
                gettext_noop("line %(line)s", line=record.line)
                if record.line
                else gettext_noop("an earlier sample")
            )
            plans.append(VerdictPlan(record, run, response, version))
        # The turns' verdicts are kept beside the response's verdict that folds them.
        return fold_turns(plans) + [plan for plan in plans if plan.record.turn is not None]

    def plan_ratings(self, records: Sequence[RatingRecord]) -> list[RatingPlan]:
        questions = set(
            LikertItem.objects.filter(study__framework=self.framework).values_list("key", flat=True)
        )
        plans: list[RatingPlan] = []
        seen: dict[tuple[Any, ...], int] = {}
        for record in records:
            response = self.resolve_response(record)
            if record.question not in questions:
                self.problem(
                    record,
                    "question",
                    gettext_noop(
                        "no rating question '%(question)s' in a study of framework '%(code)s'",
                        question=record.question,
                        code=self.framework.code,
                    ),
                )
                continue
            if response is None:
                continue
            run = record.run_key
            identity = (run, response, record.question, record.epoch)
            if identity in seen:
                self.problem(
                    record,
                    None,
                    gettext_noop(
                        "a second rating for the same response, question, epoch and run "
                        "(first at line %(seen)s)",
                        seen=seen[identity],
                    ),
                )
                continue
            seen[identity] = record.line
            plans.append(RatingPlan(record, run, response))
        return plans

    def resolve_response(self, record: VerdictRecord | RatingRecord) -> ResponseKey | None:
        """The response a verdict or rating names: its current version, or the version named
        by `response_version` (a version stored before this import)."""
        found = self.resolve_current(record)
        version = record.response_version
        if found is None or version is None:
            return found
        task_id, external_id, _ = found
        if (task_id, external_id) not in self.importing and version == self.current_version.get(
            (task_id, external_id)
        ):
            return found
        stored = self.versions().get((task_id, external_id), [])
        if version not in stored:
            self.problem(
                record,
                "response_version",
                gettext_noop(
                    "response '%(response_id)s' has no stored version %(version)s (its versions: "
                    "%(versions)s)",
                    response_id=external_id,
                    version=version,
                    versions=", ".join(str(v) for v in stored) or "-",
                ),
            )
            return None
        return (task_id, external_id, version)

    def resolve_current(self, record: VerdictRecord | RatingRecord) -> ResponseKey | None:
        if record.response_id is not None:
            matches = self.by_id.get(record.response_id, set())
            if record.task_key is not None:  # the id within that task (ids repeat across tasks)
                task = self.tasks.get(str(record.task_key))
                matches = {m for m in matches if task is not None and m[0] == task.pk}
            if not matches:
                self.problem(
                    record,
                    "response_id",
                    gettext_noop(
                        "no response with id '%(response_id)s'", response_id=record.response_id
                    ),
                )
            elif len(matches) > 1:
                self.problem(
                    record,
                    "response_id",
                    gettext_noop(
                        "several tasks have a response with id '%(response_id)s': name it by "
                        "task_key, model and epoch",
                        response_id=record.response_id,
                    ),
                )
            return next(iter(matches)) if len(matches) == 1 else None
        task = self.tasks.get(str(record.task_key))
        if task is None:
            self.problem(
                record,
                "task_key",
                gettext_noop(
                    "no task '%(task_key)s' in framework '%(code)s'",
                    task_key=record.task_key,
                    code=self.framework.code,
                ),
            )
            return None
        matches = self.by_epoch.get((task.pk, str(record.model), record.epoch), set())
        which = {"model": record.model, "task": task.key, "epoch": record.epoch}
        if not matches:
            self.problem(
                record,
                "model",
                gettext_noop(
                    "no response of model '%(model)s' to task '%(task)s' in epoch %(epoch)s: "
                    "import the responses first, or name them by response_id",
                    **which,
                ),
            )
        elif len(matches) > 1:
            ids = ", ".join(f"'{external_id}'" for _, external_id, _ in sorted(matches))
            self.problem(
                record,
                "model",
                gettext_noop(
                    "several responses of model '%(model)s' to task '%(task)s' in epoch "
                    "%(epoch)s (ids %(ids)s): name one by response_id",
                    **which,
                    ids=ids,
                ),
            )
        return next(iter(matches)) if len(matches) == 1 else None

    def published_versions(self, task_ids: set[int]) -> dict[tuple[int, int], CriterionVersion]:
        latest: dict[int, int] = {}
        for task_id, pk in (
            RubricVersion.objects.filter(task__in=task_ids)
            .order_by("task_id", "number")
            .values_list("task_id", "pk")
        ):
            latest[task_id] = pk
        task_of = {pk: task_id for task_id, pk in latest.items()}
        items = RubricItem.objects.filter(rubric_version__in=task_of).select_related(
            "criterion_version"
        )
        return {
            (task_of[item.rubric_version_id], item.criterion_version.criterion_id): (
                item.criterion_version
            )
            for item in items
        }

    def latest_versions(self) -> dict[int, CriterionVersion]:
        latest: dict[int, CriterionVersion] = {}
        versions = CriterionVersion.objects.filter(criterion__framework=self.framework)
        for version in versions.order_by("criterion_id", "number"):
            latest[version.criterion_id] = version
        return latest


def _answer_mismatch(record: VerdictRecord, version: CriterionVersion, code: str) -> str:
    """Why the judge's answer does not fit the criterion ("" when it does): a level on a
    binary criterion, a level off the scale, or true/false on an ordinal criterion."""
    low, high = version.scale_min, version.scale_max
    if record.level is not None:
        if not version.is_ordinal:
            return gettext_noop(
                "criterion '%(code)s' is met or not met: the level %(level)s is no verdict",
                code=code,
                level=record.level,
            )
        if low is None or high is None or not low <= record.level <= high:
            return gettext_noop(
                "criterion '%(code)s': the level %(level)s is outside its scale %(low)s-%(high)s",
                code=code,
                level=record.level,
                low=low,
                high=high,
            )
    elif version.is_ordinal and record.verdict is not None:
        return gettext_noop(
            "criterion '%(code)s' is rated on a scale %(low)s-%(high)s: give a level, not "
            "true/false",
            code=code,
            low=low,
            high=high,
        )
    return ""


def fold_turns(plans: list[VerdictPlan]) -> list[VerdictPlan]:
    """The judge's verdicts on each tutor turn of a dialogue (a turn-level criterion, one per
    turn) as one verdict on the response, by the criterion's rule
    (core.scoring.turn_outcome); a turn whose answer could not be read leaves the
    response without a verdict. Its rationale is the turns', each after its turn's name."""
    folded: list[VerdictPlan] = []
    turns: dict[tuple[Any, ...], list[VerdictPlan]] = defaultdict(list)
    for plan in plans:
        if plan.record.turn is None:
            folded.append(plan)
        else:
            key = (plan.run, plan.response, plan.version.pk, plan.record.epoch)
            turns[key].append(plan)
    for group in turns.values():
        group.sort(key=lambda p: p.record.turn or 0)
        first, version = group[0], group[0].version
        outcomes = [None if p.record.verdict is None else bool(p.record.verdict) for p in group]
        verdict = (
            None
            if any(o is None for o in outcomes)
            else turn_outcome(outcomes, version.turn_rule, version.turn_share)
            if version.per_turn
            else all(outcomes)
        )
        rationale = "\n".join(
            f"Turn {(p.record.turn or 0) + 1}: {p.record.rationale}"
            for p in group
            if p.record.rationale
        )
        # The turns' stated probabilities stay with them: none is folded into the response's.
        record = dataclasses.replace(
            first.record, verdict=verdict, rationale=rationale, turn=None, pass_probability=None
        )
        folded.append(VerdictPlan(record, first.run, first.response, version))
    return folded


def applies(criterion: Criterion, task: Task) -> bool:
    """Whether `criterion` is in `task`'s rubric by its owner (universal: every task)."""
    if criterion.layer == Layer.TASK:
        return criterion.task_id == task.pk
    if criterion.layer == Layer.CONSENSUS:
        return criterion.sub_competency_id == task.sub_competency_id
    return True


def write_verdicts(
    plans: list[VerdictPlan],
    responses: list[ResponsePlan],
    report: ImportReport,
    ratings: Sequence[RatingPlan] = (),
    source: str = "",
) -> None:
    """Create the verdicts (a response's and, on a turn-level criterion, its tutor turns'); a
    re-imported verdict is updated in place. A verdict naming a turn the response does not
    have as a tutor turn is a problem (the caller rolls back)."""
    counts = report.count("verdicts")
    runs = report.count("judge runs")
    wanted = {plan.run for plan in plans} | {plan.run for plan in ratings}
    existing_runs = {
        (run.judge_model, run.prompt_version, run.run_id): run
        for run in JudgeRun.objects.filter(judge_model__in={key[0] for key in wanted})
    }
    new_runs = [
        JudgeRun(judge_model=key[0], prompt_version=key[1], run_id=key[2])
        for key in sorted(wanted - set(existing_runs))
    ]
    insert(JudgeRun, new_runs)
    runs.created += len(new_runs)
    runs.unchanged += len(wanted & set(existing_runs))
    run_by_key = existing_runs | {(r.judge_model, r.prompt_version, r.run_id): r for r in new_runs}
    named = [plan.response for plan in plans] + [plan.response for plan in ratings]
    versions_named = {key[2] for key in named if key[2] is not None}
    stored = Response.objects.filter(
        task__in={key[0] for key in named}, external_id__in={key[1] for key in named}
    ).filter(Q(superseded_at__isnull=True) | Q(version__in=versions_named))
    response_pk: dict[ResponseKey, int] = {}
    for r in stored:
        if r.is_current:
            response_pk[(r.task_id, r.external_id, None)] = r.pk
        response_pk[(r.task_id, r.external_id, r.version)] = r.pk
    response_pk |= {
        (p.task.pk, p.external_id, None): p.response_id
        for p in responses
        if p.response_id is not None  # every one, once written
    }
    current = {
        (v.run_id, v.response_id, v.criterion_version_id, v.epoch, v.turn_id): v
        for v in JudgeVerdict.objects.filter(run__in=[r.pk for r in run_by_key.values()])
    }
    tutor_turns = _tutor_turns(
        {response_pk[p.response] for p in plans if p.record.turn is not None}
    )
    new, changed = [], []
    for plan in plans:
        run = run_by_key[plan.run]
        response = response_pk[plan.response]
        turn = None
        if plan.record.turn is not None:
            turn = tutor_turns.get((response, plan.record.turn))
            if turn is None:
                report.problems.append(
                    Problem(
                        source,
                        plan.record.line or None,
                        "turn",
                        gettext_noop(
                            "the response has no tutor turn %(turn)s (turns are counted from 0, "
                            "every role included)",
                            turn=plan.record.turn,
                        ),
                    )
                )
                continue
        found = current.get((run.pk, response, plan.version.pk, plan.record.epoch, turn))
        # A dialogue's turns are counted apart, so "verdicts" still counts responses judged.
        counter = counts if turn is None else report.count("turn verdicts")
        if found is None:
            counter.created += 1
            new.append(
                JudgeVerdict(
                    run=run,
                    response_id=response,
                    criterion_version=plan.version,
                    epoch=plan.record.epoch,
                    turn_id=turn,
                    verdict=plan.record.verdict,
                    level=plan.record.level,
                    rationale=stored_output(plan.record.rationale),
                    pass_probability=plan.record.pass_probability,
                )
            )
        elif (found.verdict, found.level, found.rationale, found.pass_probability) != (
            plan.record.verdict,
            plan.record.level,
            stored_output(plan.record.rationale),
            plan.record.pass_probability,
        ):
            found.verdict, found.rationale = (
                plan.record.verdict,
                stored_output(plan.record.rationale),
            )
            found.level = plan.record.level
            found.pass_probability = plan.record.pass_probability
            changed.append(found)
            counter.updated += 1
        else:
            counter.unchanged += 1
    insert(JudgeVerdict, new)
    JudgeVerdict.objects.bulk_update(
        changed, ["verdict", "level", "rationale", "pass_probability"], batch_size=BATCH
    )
    if ratings:
        write_ratings(ratings, run_by_key, response_pk, report)


def _tutor_turns(responses: set[int]) -> dict[tuple[int, int], int]:
    """(response, turn index) -> the turn's pk, for the tutor turns of `responses`."""
    rows = Turn.objects.filter(response__in=responses, role=Turn.Role.ASSISTANT)
    return {
        (response, index): pk
        for pk, response, index in rows.values_list("pk", "response_id", "index")
    }


def write_ratings(
    plans: Sequence[RatingPlan],
    run_by_key: dict[RunKey, JudgeRun],
    response_pk: dict[ResponseKey, int],
    report: ImportReport,
) -> None:
    """Create the judge's 1-5 ratings; a re-imported rating is updated in place."""
    counts = report.count("judge ratings")
    current = {
        (r.run_id, r.response_id, r.question, r.epoch): r
        for r in JudgeRating.objects.filter(run__in=[run_by_key[plan.run].pk for plan in plans])
    }
    new, changed = [], []
    for plan in plans:
        run, record = run_by_key[plan.run], plan.record
        response = response_pk[plan.response]
        found = current.get((run.pk, response, record.question, record.epoch))
        if found is None:
            new.append(
                JudgeRating(
                    run=run,
                    response_id=response,
                    question=record.question,
                    epoch=record.epoch,
                    value=record.score,
                    rationale=stored_output(record.rationale),
                )
            )
        elif (found.value, found.rationale) != (record.score, stored_output(record.rationale)):
            found.value, found.rationale = record.score, stored_output(record.rationale)
            changed.append(found)
        else:
            counts.unchanged += 1
    insert(JudgeRating, new)
    JudgeRating.objects.bulk_update(changed, ["value", "rationale"], batch_size=BATCH)
    counts.created += len(new)
    counts.updated += len(changed)


def import_verdicts(
    path: Path | str,
    framework: Framework,
    *,
    judge_model: str | None = None,
    dry_run: bool = False,
    by: User | None = None,
    progress: Progress = no_progress,
) -> ImportReport:
    """Import a verdicts JSONL file, or an Inspect .eval log (its responses, then its verdicts).

    `judge_model` names the judge when an .eval log does not say."""
    path = Path(path)
    progress(0, 4, "reading the verdicts file")
    found = read_verdict_file(path, judge_model)
    return import_judge_file(
        found, framework, source=path.name, dry_run=dry_run, by=by, progress=progress
    )


def import_judge_file(
    found: JudgeFile,
    framework: Framework,
    *,
    source: str,
    dry_run: bool = False,
    by: User | None = None,
    progress: Progress = no_progress,
) -> ImportReport:
    """Import what a verdicts file holds, read or built (`source` names it in problems): the
    same checks and writes for a file, an .eval log and data made in code (the demo's runs)."""
    report = ImportReport("verdicts", dry_run=dry_run)
    report.problems.extend(found.problems)
    with transaction.atomic():
        progress(1, 4, "checking responses")
        response_plans = ResponsesPlanner(framework, source, report).plan(found.responses)
        progress(2, 4, "checking verdicts")
        planner = VerdictsPlanner(framework, source, report, response_plans)
        plans = planner.plan(found.verdicts)
        rating_plans = planner.plan_ratings(found.ratings)
        if report.problems:
            return report
        progress(3, 4, "writing")
        if response_plans:
            write_responses(response_plans, report, by, source)
        if report.problems:
            transaction.set_rollback(True)
            return report
        write_verdicts(plans, response_plans, report, rating_plans, source)
        if dry_run or report.problems:
            transaction.set_rollback(True)
    progress(4, 4, "done")
    return report
