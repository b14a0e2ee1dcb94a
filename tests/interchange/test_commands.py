"""The import and export commands: exit codes, the problem list, the progress bar."""

import io

import pytest
from django.core.management import CommandError, call_command, execute_from_command_line

from core.formats.l2bench_csv import TASKS_FILE
from rubrics.models import Task
from tests.factories import benchmark_folder, generated
from tests.interchange.db_helpers import row_counts

pytestmark = pytest.mark.django_db


def run(*args):
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_import_l2bench_prints_counts_and_draws_a_progress_bar(tmp_path, starter_framework):
    folder = benchmark_folder(tmp_path, generated(3))
    out, err = run("import_l2bench", str(folder), "--framework", starter_framework.code)
    assert "tasks: 3 created, 0 updated, 0 unchanged" in out
    assert "100%" in err and "[####" in err
    out, _ = run("import_l2bench", str(folder))
    assert "tasks: 0 created, 0 updated, 3 unchanged" in out


def test_dry_run_command_writes_nothing(tmp_path, starter_framework):
    folder = benchmark_folder(tmp_path, generated(3))
    before = row_counts()
    out, _ = run("import_l2bench", str(folder), "--dry-run")
    assert "3 created" in out and "dry run" in out
    assert row_counts() == before


def test_bad_input_exits_non_zero_with_every_problem(tmp_path, starter_framework):
    folder = benchmark_folder(tmp_path, generated(2))
    text = (folder / TASKS_FILE).read_text(encoding="utf-8-sig").replace(",02a,", ",zz9,")
    (folder / TASKS_FILE).write_text(text, encoding="utf-8-sig")
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 problem: nothing was imported"):
        call_command("import_l2bench", str(folder), stdout=io.StringIO(), stderr=err)
    assert (
        "l2-bench_tasks.csv: row 2: field 'competency': unknown sub-competency 'zz9'"
        in err.getvalue()
    )
    assert not Task.objects.exists()


def test_commands_exit_non_zero_as_a_process(tmp_path, starter_framework):
    (tmp_path / "r.jsonl").write_text('{"task_key": "1", "model": "m"}\n', encoding="utf-8")
    with pytest.raises(SystemExit) as exit_info:
        execute_from_command_line(["manage.py", "import_responses", str(tmp_path / "r.jsonl")])
    assert exit_info.value.code == 1


def test_export_commands_write_the_files(tmp_path, starter_framework):
    run("import_l2bench", str(benchmark_folder(tmp_path / "in", generated(2))))
    out, _ = run("export_l2bench", str(tmp_path / "out"))
    assert "2 tasks" in out and (tmp_path / "out" / TASKS_FILE).exists()
    out, _ = run("export_rubrics", str(tmp_path / "r.xlsx"))
    assert (tmp_path / "r.xlsx").stat().st_size > 0
    with pytest.raises(CommandError):
        run("export_l2bench", str(tmp_path / "out"))


def test_verdicts_command_reports_a_missing_criterion(tmp_path, starter_framework):
    run("import_l2bench", str(benchmark_folder(tmp_path / "in", generated(2))))
    (tmp_path / "v.jsonl").write_text(
        '{"task_key": "101", "model": "m", "criterion_id": "101-77", "verdict": true, '
        '"judge_model": "j"}\n',
        encoding="utf-8",
    )
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command("import_verdicts", str(tmp_path / "v.jsonl"), stdout=io.StringIO(), stderr=err)
    assert "field 'criterion_id': no criterion '101-77'" in err.getvalue()


def spanish_shell(monkeypatch):
    monkeypatch.setenv("LANG", "es_ES.UTF-8")


def test_an_import_command_speaks_the_shells_language(tmp_path, starter_framework, monkeypatch):
    spanish_shell(monkeypatch)
    folder = benchmark_folder(tmp_path, generated(3))
    out, err = run("import_l2bench", str(folder), "--dry-run")
    assert out.startswith("tareas: 3 altas, 0 modificaciones, 0 sin cambios; criterios: ")
    assert out.endswith("(simulación: no se escribió nada)\n")
    assert "lectura del archivo de tareas" in err  # the progress bar's stage
    assert "tasks:" not in out and "reading the tasks file" not in err


def test_an_import_command_lists_its_problems_in_the_shells_language(
    tmp_path, starter_framework, monkeypatch
):
    spanish_shell(monkeypatch)
    folder = benchmark_folder(tmp_path, generated(2))
    text = (folder / TASKS_FILE).read_text(encoding="utf-8-sig").replace(",02a,", ",zz9,")
    (folder / TASKS_FILE).write_text(text, encoding="utf-8-sig")
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 problema: no se importó nada"):
        call_command("import_l2bench", str(folder), stdout=io.StringIO(), stderr=err)
    assert (
        "l2-bench_tasks.csv: fila 2: campo 'competency': subcompetencia desconocida 'zz9'"
        in err.getvalue()
    )
