"""The judge on an ordinal criterion: the prompt asks for a level of the scale, the answer is
read as one (asked again when it is not), and the level is stored; against the loopback
OpenAI server, through Inspect AI and the Inspect importer."""

import pytest

from accounts.roles import Role
from core.prompting import LEVEL_CORRECTIVE_MESSAGE, AnswerStyle, parse_level
from grading import services as grading
from judging.models import JudgeRun
from judging.running import execute_run
from judging.runs import start_run
from judging.units import study_units
from rubrics.models import Response
from tests import factories
from tests.llm_server import model_name

JUDGE = model_name("judge-levels")


def test_a_level_is_read_only_when_it_is_a_whole_number_of_the_scale():
    assert parse_level(" 3 ", AnswerStyle.BINARY, (0, 4)) == 3
    assert parse_level("It reaches level two.\n2", AnswerStyle.CRITIQUE, (1, 5)) == 2
    assert [parse_level(a, AnswerStyle.BINARY, (1, 5)) for a in ("0", "6", "3.5", "true", "")] == [
        None
    ] * 5


@pytest.mark.django_db
def test_the_judge_answers_a_level_on_an_ordinal_criterion(
    make_user, settings, tmp_path, llm_server
):
    settings.JUDGE_LOG_DIR = tmp_path / "logs"
    settings.JUDGE_CACHE_DIR = tmp_path / "cache"
    grader = make_user(Role.ANNOTATOR)
    task = factories.published_task(criteria=2, scale=(1, 5))
    answer = Response.objects.create(task=task, model_name="m", text="A warm-up.", external_id="r1")
    study = grading.create_study(
        name="Judged levels",
        framework=task.framework,
        responses=[answer],
        annotators=[grader],
        overlap=1,
    )
    ordinal, binary = study_units(study)
    assert ordinal.scale == (1, 5) and binary.scale is None
    assert "answer with the one whole number from 1 to 5" in ordinal.unit.criterion
    assert "5: Level 5" in ordinal.unit.criterion
    scaled = ordinal.unit.criterion

    def reply(request):
        if scaled not in request.prompt:
            return "true"
        return "4" if "could not be read" in request.prompt else "quite good"

    llm_server.default = reply
    run = execute_run(start_run(study, model=JUDGE, by=None, enqueue=False).pk)
    assert run.status == JudgeRun.Status.SUCCEEDED, run.problems
    verdicts = {v.criterion_version_id: v for v in run.verdicts.all()}
    assert (verdicts[ordinal.version_pk].level, verdicts[ordinal.version_pk].verdict) == (4, None)
    assert (verdicts[binary.version_pk].level, verdicts[binary.version_pk].verdict) == (None, True)
    assert run.unparseable == 0
    retry = LEVEL_CORRECTIVE_MESSAGE[AnswerStyle.BINARY].format(low=1, high=5)
    assert any(retry in request.prompt for request in llm_server.completions)
