"""The `.eval` reader on logs written by the real `inspect_ai` package (Zstandard members), run
against the loopback OpenAI-compatible server."""

import json
import shutil
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from core.formats.inspect_eval import read_inspect_eval
from core.formats.zip_members import ZSTANDARD, ZipMembers
from tests.inspect_logs import JUDGE, TUTOR, LogTask, judging, write_judge_log
from tests.llm_server import model_name

TASKS = [
    LogTask("101", "Plan a lesson on the past tense.", (("101-01", 3, "Uses A2 words"),
            ("06u1", -1, "Is condescending"))),
    LogTask("102", "Explain 'since' and 'for'.", (("102-01", 2, "Gives an example"),)),
    LogTask("103", "Correct this sentence.", (("103-01", 1, "Names the error"),)),
]  # fmt: skip
ANSWERS = {("101", "101-01"): "true", ("101", "06u1"): "FALSE", ("102", "102-01"): "false"}
UNPARSEABLE = "Mostly yes, but not quite."


def script(request):
    judged = judging(request)
    if judged is None:
        return f"The tutor's answer to: {request.prompt}"
    return ANSWERS.get(judged, UNPARSEABLE)


@pytest.fixture(scope="module")
def written(llm_server_for_session, tmp_path_factory):
    """One log of three tasks in two epochs; the judge cannot decide on task 103."""
    llm_server_for_session.reset()
    llm_server_for_session.default = script
    path = write_judge_log(tmp_path_factory.mktemp("logs"), TASKS, epochs=2, prompt_version="v7")
    return path, list(llm_server_for_session.completions)


@pytest.fixture(scope="module")
def log(written):
    return read_inspect_eval(written[0])


def test_inspect_writes_its_members_with_zstandard(written):
    with zipfile.ZipFile(written[0]) as archive:
        methods = {info.compress_type for info in archive.infolist()}
        names = set(archive.namelist())
    assert methods == {ZSTANDARD}
    assert {"header.json", "samples/101_epoch_1.json", "samples/103_epoch_2.json"} <= names


def test_the_header_gives_task_run_models_and_prompt_version(written, log):
    with ZipMembers(written[0]) as archive:
        run_id = json.loads(archive.read("header.json"))["eval"]["run_id"]
    assert (log.task, log.run_id, log.prompt_version) == ("l2_bench", run_id, "v7")
    assert (log.evaluated_model, log.judge_model) == (model_name(TUTOR), model_name(JUDGE))


def test_each_judged_criterion_gives_one_verdict_per_epoch(log):
    found = {(v.task_key, v.criterion_id, v.epoch): (v.verdict, v.weight) for v in log.verdicts}
    assert found == {
        ("101", "101-01", 1): (True, 3),
        ("101", "101-01", 2): (True, 3),
        ("101", "06u1", 1): (False, -1),
        ("101", "06u1", 2): (False, -1),
        ("102", "102-01", 1): (False, 2),
        ("102", "102-01", 2): (False, 2),
    }
    assert {v.rationale for v in log.verdicts if v.criterion_id == "06u1"} == {"FALSE"}
    assert {(v.model, v.judge_model, v.prompt_version) for v in log.verdicts} == {
        (model_name(TUTOR), model_name(JUDGE), "v7")
    }


def test_the_tutors_answers_become_the_evaluated_responses(log):
    found = {(r.task_key, r.epoch): r.response for r in log.responses}
    assert set(found) == {(t.key, epoch) for t in TASKS for epoch in (1, 2)}
    assert found["102", 2] == "The tutor's answer to: Explain 'since' and 'for'."


def test_an_unparseable_judge_answer_names_file_sample_and_field(written, log):
    field = "scores.l2_scorer.metadata.scoring_results[0].judgement"
    # Inspect writes the samples of both epochs concurrently: their order in the archive varies.
    assert sorted(str(p) for p in log.problems) == [
        f"{written[0].name}: samples/103_epoch_{epoch}.json: field '{field}': "
        f"'{UNPARSEABLE}' is not true or false (also pass/fail, yes/no)"
        for epoch in (1, 2)
    ]


def test_the_judge_was_asked_once_per_criterion_and_epoch(written):
    judged = sorted(judging(r) for r in written[1] if judging(r))
    expected = sorted((t.key, c[0]) for t in TASKS for c in t.criteria for _ in range(2))
    assert judged == expected
    assert sum(judging(r) is None for r in written[1]) == len(TASKS) * 2


def test_a_process_without_inspect_reads_the_zstandard_log(written):
    """The test process has imported inspect_ai, which teaches zipfile Zstandard in passing:
    the reader must not depend on that."""
    check = (
        "import sys, json; from pathlib import Path; "
        "from core.formats.inspect_eval import read_inspect_eval; "
        f"log = read_inspect_eval(Path({str(written[0])!r})); "
        "print(json.dumps([len(log.verdicts), len(log.responses), len(log.problems), "
        "sorted(m for m in ('inspect_ai', 'zipfile_zstd') if m in sys.modules)]))"
    )
    root = Path(__file__).resolve().parents[2]
    result = subprocess.run([sys.executable, "-c", check], cwd=root, capture_output=True)
    assert result.returncode == 0, result.stderr.decode()
    assert json.loads(result.stdout) == [6, 6, 2, []]


def test_a_corrupt_zstandard_sample_is_named(written, tmp_path):
    path = shutil.copy(written[0], tmp_path / "broken.eval")
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo("samples/102_epoch_1.json")
    with open(path, "r+b") as file:
        file.seek(info.header_offset + 26)
        name_length, extra_length = struct.unpack("<HH", file.read(4))
        file.seek(info.header_offset + 30 + name_length + extra_length)
        file.write(b"\0" * info.compress_size)
    (problem,) = [str(p) for p in read_inspect_eval(Path(path)).problems if "/102_" in str(p)]
    assert problem.startswith(
        "broken.eval: samples/102_epoch_1.json: cannot be read: it is corrupt (Zstandard: "
    )
