"""A Spanish reader of a refused import's page reads every problem in Spanish: the problems
of the benchmark, responses, verdicts and offline workbook importers, as the import jobs
store them."""

import csv
import json
import re
import zipfile
from html import unescape
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation
from openpyxl import load_workbook

from accounts.roles import Role
from core.formats.l2bench_csv import REQUIRED_COLUMNS, TASKS_FILE
from core.formats.problems import Problem, gettext_noop
from core.formats.synthetic import synthetic_responses, write_jsonl
from grading import services
from interchange import offline
from interchange.importers import import_l2bench, import_responses
from interchange.importers.report import ImportReport
from interchange.models import ImportJob
from interchange.problem_text import (
    nothing_imported,
    problem_text,
    report_summary,
    stored_problems,
)
from judging.verdict_import import import_verdicts
from tests import factories
from tests.factories import benchmark_folder, generated, make_job
from tests.project.test_spanish_pages import WORD, english_words

pytestmark = [pytest.mark.django_db, pytest.mark.http]


def jsonl(path: Path, lines: list[object]) -> Path:
    path.write_text(
        "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines),
        encoding="utf-8",
    )
    return path


BASE_ROW = {
    "task": "Plan a lesson.",
    "reference_answer": "An answer.",
    "competency": "02a",
    "version_at_time_of_draft": "v1",
    "is_published_v1-0": "TRUE",
    "consensus_criteria": "02a-01. Is clear. ==2",
}


def benchmark(folder: Path, rows: list[dict[str, str]], context: str = "") -> Path:
    (folder / "resources_for_tasks").mkdir(parents=True)
    header = [*REQUIRED_COLUMNS, *([f"context:{context}"] if context else [])]
    with (folder / TASKS_FILE).open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, header, restval="")
        writer.writeheader()
        writer.writerows({**BASE_ROW, **row} for row in rows)
    return folder


def broken_log(path: Path) -> Path:
    """An Inspect AI log whose members are not JSON."""
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("header.json", '{"eval": ')
        archive.writestr("samples/1_epoch_1.json", '{"id": 1,,}')
    return path


def every_problem(tmp_path: Path, framework) -> list[tuple[str, list[object]]]:
    """Each importer's problems, found reading the file and then against the database."""
    tasks = generated(2)
    assert import_l2bench(benchmark_folder(tmp_path / "ok", tasks), framework).ok
    task, own = tasks[0], tasks[0].task_criteria[0]
    responses = write_jsonl(tmp_path / "ok.jsonl", synthetic_responses(tasks, ["m-a"]))
    assert import_responses(responses, framework).ok
    unread_tasks = [
        {"task_key": "t1", "consensus_criteria": "02a-01. Is clear. ==high"},
        {"task_key": "t2", "task_criteria": "t2-01. Local ids only. ==1"},
        {"task_key": "t2", "task": ""},
        {"task_key": "t3", "is_published_v1-0": "maybe", "task_criteria": "01. A | 01. B ==1"},
    ]
    unknown_tasks = [
        {"task_key": "t1", "competency": "99z"},
        {"task_key": "t2", "task_criteria": "01. Weightless. ==0"},
        {"task_key": "t3", "task_resource_file_link_1": "missing.md"},
        {"task_key": "t4", "context:no_such": "3"},
    ]
    turns = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}]
    line = {"task_key": task.task_key, "model": "m"}
    unread_responses: list[object] = [
        "not json",
        '{"task_key": "1",}',
        {**line, "epoch": "one", "response": "x"},
        {"task_key": task.task_key, "response": "x"},
        {**line, "response": "x", "turns": turns},
        {**line},
        {**line, "turns": [{"role": "x", "content": "y"}]},
        {**line, "turns": [{"role": "user", "content": "y"}]},
        {**line, "turns": [{"role": "assistant", "content": 3}]},
        {**line, "response": ""},
        {**line, "model": "m2", "response": "x", "id": "same"},
        {**line, "model": "m3", "response": "x", "id": "same"},
        {**line, "task_id": "other", "response": "x"},
    ]
    rating = {"task_key": task.task_key, "model": "m-a", "judge_model": "j"}
    verdict = {**rating, "verdict": True}
    unread_verdicts: list[object] = [
        [1, 2],
        {**verdict, "criterion_id": own.id, "verdict": "perhaps"},
        {**verdict, "criterion_id": own.id, "response_id": "r"},
        {"task_key": task.task_key, "criterion_id": own.id, "verdict": True, "judge_model": "j"},
        {**verdict, "question": "q", "score": 9, "criterion_id": own.id},
        {**verdict, "criterion_id": own.id, "epoch": "one"},
    ]
    unknown_verdicts: list[object] = [
        {**verdict, "criterion_id": "01a-99"},
        {**verdict, "criterion_id": own.id, "model": "nobody"},
        {**verdict, "criterion_id": own.id, "weight": own.weight + 1, "run_id": "2"},
        {**verdict, "criterion_id": tasks[1].task_criteria[0].id},
        {"response_id": "missing", "criterion_id": own.id, "verdict": True, "judge_model": "j"},
        {**rating, "question": "no such question", "score": 3},
    ]
    # A turn is checked as the verdicts are written, once nothing else is wrong.
    no_turn = [{**verdict, "criterion_id": own.id, "turn": 7}]
    reports = [
        ("benchmark", import_l2bench(benchmark(tmp_path / "b1", unread_tasks), framework)),
        (
            "benchmark",
            import_l2bench(benchmark(tmp_path / "b2", unknown_tasks, "no_such"), framework),
        ),
        ("responses", import_responses(jsonl(tmp_path / "r1.jsonl", unread_responses), framework)),
        (
            "responses",
            import_responses(
                jsonl(tmp_path / "r2.jsonl", [{**line, "task_key": "nope", "response": "x"}]),
                framework,
            ),
        ),
        ("verdicts", import_verdicts(jsonl(tmp_path / "v1.jsonl", unread_verdicts), framework)),
        ("verdicts", import_verdicts(jsonl(tmp_path / "v2.jsonl", unknown_verdicts), framework)),
        ("verdicts", import_verdicts(jsonl(tmp_path / "v3.jsonl", no_turn), framework)),
        ("eval_log", import_verdicts(broken_log(tmp_path / "broken.eval"), framework)),
    ]
    return [(kind, stored_problems(report.problems)) for kind, report in reports]


def filled_workbook(path: Path, study, grader, verdict: str, rating: int) -> Path:
    """The grader's workbook with every verdict cell `verdict` and every rating `rating`."""
    offline.write_workbook(path, study, grader)
    workbook = load_workbook(path)
    sheet = workbook["Grading"]
    for row in range(2, sheet.max_row + 1):
        if criterion_id := sheet.cell(row, 2).value:
            rating_row = criterion_id.startswith("likert:")
            sheet.cell(row, 6).value = rating if rating_row else verdict
    workbook.save(path)
    return path


def workbook_problems(tmp_path: Path, make_user) -> list[tuple[str, list[object]]]:
    """An offline grading workbook's problems: cells filled wrongly, and the workbook of
    another grader."""
    graders = [make_user(Role.ANNOTATOR) for _ in range(2)]
    study = factories.study(graders, responses=1, overlap=2)
    services.assign_study(study)
    wrong = filled_workbook(tmp_path / "wrong.xlsx", study, graders[0], "maybe", 9)
    right = filled_workbook(tmp_path / "right.xlsx", study, graders[0], "Fail", 3)
    reports = [
        offline.import_workbook(wrong, study, graders[0]),
        offline.import_workbook(right, study, graders[1]),
    ]
    return [("offline", stored_problems(report.problems)) for report in reports]


QUOTED = re.compile(r"'[^']*'|“[^”]*”")
FILE_NAME = re.compile(r"\S+\.\w{1,8}\b")  # the uploaded file's name: the person's words


def listed_problems(html: str) -> list[str]:
    listed = html.split('<ol class="problems">', 1)[1].split("</ol>", 1)[0]
    return [unescape(re.sub(r"<[^>]+>", "", item)) for item in listed.split("<li>")[1:]]


def test_a_spanish_reader_reads_every_importers_problems_in_spanish(
    tmp_path, starter_framework, make_user
):
    english = english_words()
    reader = make_user(Role.MAINTAINER)
    reader.language = "es"
    reader.save()
    client = Client()
    client.force_login(reader)
    found = {}
    found_problems = every_problem(tmp_path, starter_framework)
    for kind, problems in [*found_problems, *workbook_problems(tmp_path, make_user)]:
        assert problems, kind
        job = make_job(
            starter_framework,
            kind=kind,
            status=ImportJob.Status.REFUSED,
            problems=problems,
            summary=nothing_imported(len(problems)),
        )
        shown = listed_problems(client.get(reverse("interchange:job", args=[job.pk])).text)
        assert len(shown) == len(problems)
        for line in shown:
            # The values quoted from the file ('task_key', 'maybe') are the file's words.
            shown = FILE_NAME.sub(" ", QUOTED.sub(" ", line))
            words = {w for w in WORD.findall(shown) if w.lower() in english}
            if words:
                found[line] = words
    assert found == {}, "\n".join(f"{line}: {sorted(words)}" for line, words in found.items())


def test_the_check_sees_english_in_a_problem(tmp_path):
    english = english_words()
    with translation.override("es"):
        line = problem_text(
            Problem(
                "r.jsonl",
                1,
                None,
                gettext_noop("not valid JSON (%(reason)s)", reason="Expecting value"),
            )
        )
    assert "value" in {w for w in WORD.findall(QUOTED.sub(" ", line)) if w.lower() in english}


def test_an_imports_counts_of_turn_verdicts_are_named_in_spanish():
    report = ImportReport("verdicts")
    report.count("turn verdicts").created = 3
    with translation.override("es"):
        assert report_summary(report).startswith("veredictos por turno: 3 ")
