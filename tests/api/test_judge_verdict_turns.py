"""The verdicts on a dialogue's tutor turns in the API: listed only when asked for, so a count of
verdicts never mixes the turns with the responses' folded verdicts."""

import json

import pytest
from django.urls import reverse

from judging.models import JudgeRun
from judging.verdict_import import import_verdicts
from tests.factories import framework, published_task, response

pytestmark = pytest.mark.django_db


@pytest.fixture
def run(tmp_path):
    task = published_task(turn_rule="any")
    answer = response(task, turns=4)
    answer.external_id = "dlg-1"
    answer.save()
    objects = [
        {"response_id": "dlg-1", "criterion_id": f"{task.key}-01", "verdict": verdict}
        | {"turn": turn, "judge_model": "judge-a", "run_id": "r1"}
        for turn, verdict in ((1, False), (3, True))
    ]
    path = tmp_path / "v.jsonl"
    path.write_text("".join(json.dumps(o) + "\n" for o in objects), encoding="utf-8")
    assert import_verdicts(path, framework()).ok
    return JudgeRun.objects.get(run_id="r1")


def test_the_list_gives_the_responses_verdicts_and_the_turns_only_when_asked(run, viewer_api):
    url = reverse("api:judgeverdict-list")
    whole = viewer_api.get(url, {"run": run.pk}).json()["results"]
    assert [(v["turn"], v["verdict"]) for v in whole] == [(None, True)]  # any turn passes
    turns = viewer_api.get(url, {"run": run.pk, "turns": "true"}).json()["results"]
    assert sorted((v["turn"], v["verdict"]) for v in turns) == [(1, False), (3, True)]
    again = viewer_api.get(url, {"run": run.pk, "turns": "false"}).json()["results"]
    assert again == whole
    one = viewer_api.get(reverse("api:judgeverdict-detail", args=[turns[0]["id"]])).json()
    assert one["turn"] == turns[0]["turn"]  # a turn's verdict is found by its id


def test_a_runs_verdict_count_counts_responses_not_turns(run, viewer_api):
    found = viewer_api.get(reverse("api:judgerun-detail", args=[run.pk])).json()
    assert found["verdicts"] == 1
