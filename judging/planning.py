"""The judge's verdicts a grading plan is measured on (grading.services.planning) and a sampled
study is drawn by (grading.services.sampling), read here because they are this app's data;
registered with grading when the app loads (judging.apps)."""

from grading.services import sampling
from grading.services.planning import MeasuredRun, VerdictRow
from judging.models import JudgeRun, JudgeVerdict


def planning_verdicts(
    responses: set[int], run_id: int | None = None
) -> tuple[MeasuredRun | None, list[VerdictRow]]:
    """The run a plan measures the judge on, `run_id` (None: the latest run with verdicts on
    some of `responses`), and its verdicts on whole ones among them."""
    verdicts = JudgeVerdict.objects.per_response().filter(
        response_id__in=responses, verdict__isnull=False
    )
    if run_id is not None:
        run = JudgeRun.objects.filter(pk=run_id).first()
    else:
        run = (
            JudgeRun.objects.filter(pk__in=verdicts.values("run_id"))
            .order_by("-created_at", "-pk")
            .first()
        )
    if run is None:
        return None, []
    rows = verdicts.filter(run=run).values_list(
        "response_id", "criterion_version_id", "epoch", "verdict"
    )
    found = MeasuredRun(pk=run.pk, judge_model=run.judge_model, name=run.display_name)
    return found, [(r, c, e, bool(v)) for r, c, e, v in rows]


def run_verdicts(run_id: int, responses: list[int]) -> list[sampling.VerdictRow]:
    """Every verdict and level of run `run_id` on whole responses among `responses`, with the
    judge's stated probability."""
    return list(
        JudgeVerdict.objects.per_response()
        .filter(run_id=run_id, response_id__in=responses)
        .values_list("response_id", "criterion_version_id", "verdict", "level", "pass_probability")
    )
