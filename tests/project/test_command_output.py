"""A Spanish shell (LANGUAGE=es) reads what the command-line tools print, their problems and
their refusals in Spanish: no English word outside the data (names, codes, paths, values
quoted from a file). Machine-readable output (JSON, CSV, file paths alone) is data."""

import io

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from accounts.roles import Role
from core.formats.l2bench_csv import TASKS_FILE
from core.formats.synthetic import synthetic_responses, write_jsonl
from judging.services import create_template
from tests import factories
from tests.project.test_spanish_pages import english_in

pytestmark = pytest.mark.django_db


def run(*args: str) -> str:
    """What the command prints, and the refusal it ends with, if any."""
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(*args, stdout=out, stderr=err)
    except CommandError as error:
        return f"{out.getvalue()}\n{err.getvalue()}\n{error}"
    return f"{out.getvalue()}\n{err.getvalue()}"


def test_the_import_commands_speak_spanish(tmp_path, starter_framework, monkeypatch):
    tasks = factories.generated(2)
    good = factories.benchmark_folder(tmp_path / "good", tasks)
    bad = factories.benchmark_folder(tmp_path / "bad", tasks)
    text = (bad / TASKS_FILE).read_text(encoding="utf-8-sig").replace(",02a,", ",zz9,")
    (bad / TASKS_FILE).write_text(text, encoding="utf-8-sig")
    responses = write_jsonl(tmp_path / "r.jsonl", synthetic_responses(tasks, ["m-a"]))
    (tmp_path / "bad.jsonl").write_text('not json\n{"task_key": "1"}\n', encoding="utf-8")
    (tmp_path / "bad.md").write_text("---\nname: x\nversion: two\n---\n{{response}}")
    monkeypatch.setenv("LANGUAGE", "es")
    outputs = {
        "import_l2bench bad": run("import_l2bench", str(bad)),
        "import_l2bench dry": run("import_l2bench", str(good), "--dry-run"),
        "import_l2bench": run("import_l2bench", str(good)),
        "import_l2bench again": run("import_l2bench", str(good)),
        "import_l2bench missing": run("import_l2bench", str(tmp_path / "nowhere")),
        "import_responses": run("import_responses", str(responses)),
        "import_responses bad": run("import_responses", str(tmp_path / "bad.jsonl")),
        "import_verdicts bad": run("import_verdicts", str(tmp_path / "bad.jsonl")),
        "import_prompts bad": run("import_prompts", str(tmp_path / "bad.md")),
        "import_prompts missing": run("import_prompts", str(tmp_path / "missing.md")),
        "load_universal_criteria": run(
            "load_universal_criteria", str(settings.BASE_DIR / "fixtures/universal_criteria.json")
        ),
        "export_l2bench": run("export_l2bench", str(tmp_path / "out")),
        "export_l2bench again": run("export_l2bench", str(tmp_path / "out")),
        "export_rubrics": run("export_rubrics", str(tmp_path / "rubrics.xlsx")),
        "export_rubrics csv": run("export_rubrics", str(tmp_path / "rubrics.csv")),
    }
    assert english_in(outputs, [tmp_path]) == {}


def test_the_study_commands_speak_spanish(tmp_path, make_user, monkeypatch):
    graders = [make_user(Role.ANNOTATOR) for _ in range(2)]
    study = factories.graded_study(graders, ["pass", "fail"])
    create_template("house", "Response: {{response}}\nCriterion: {{criterion}}", by=None)
    run_ = factories.judge_run(study, "v1", fails_universal=True)
    monkeypatch.setenv("LANGUAGE", "es")
    s = str(study.pk)
    outputs = {
        "agreement_report": run("agreement_report", s, "--output", str(tmp_path / "a.json")),
        "final_labels": run("final_labels", s, "--output", str(tmp_path / "l.csv")),
        "export_dataset": run("export_dataset", s, str(tmp_path / "dataset")),
        "export_grades": run("export_grades", s, "--output", str(tmp_path / "g.csv")),
        "export_grades scores": run(
            "export_grades", s, "--format", "xlsx", "--scores", "--output", str(tmp_path / "g.x")
        ),
        "export_grading_workbook": run(
            "export_grading_workbook",
            str(tmp_path / "w.xlsx"),
            "--study",
            s,
            "--annotator",
            graders[0].username,
            "--all",
        ),
        "import_grading_workbook": run(
            "import_grading_workbook",
            str(tmp_path / "w.xlsx"),
            "--study",
            s,
            "--annotator",
            graders[0].username,
        ),
        "export_grading_workbook nobody": run(
            "export_grading_workbook",
            str(tmp_path / "n.xlsx"),
            "--study",
            s,
            "--annotator",
            "nobody",
        ),
        "export_eee": run("export_eee", s, str(tmp_path / "eee")),
        "export_eee developer": run(
            "export_eee", s, str(tmp_path / "eee1"), "--developer", "secret-model-x=Acme"
        ),
        "export_eee judge": run(
            "export_eee",
            s,
            str(tmp_path / "eee2"),
            "--source",
            "judge",
            "--judge-run",
            str(run_.pk),
        ),
        "export_prompts": run("export_prompts", str(tmp_path / "prompts")),
        "export_prompts nothing": run("export_prompts", str(tmp_path / "p2"), "nothing"),
        "run_judge": run("run_judge", s),
        "run_judge config": run("run_judge", s, "--config", "nothing"),
        "run_judge study": run("run_judge", "nowhere", "--model", "mockllm/model"),
        "run_judge prompt": run("run_judge", s, "--model", "mockllm/model", "--prompt", "nope"),
        "run_judge usage": run("run_judge"),
        "run_judge epochs": run("run_judge", s, "--epochs", "x"),
        "run_judge unknown": run("run_judge", s, "--bogus"),
        "export_rubrics study": run(
            "export_rubrics", str(tmp_path / "r.xlsx"), "--validated-by", s
        ),
    }
    assert english_in(outputs, [tmp_path]) == {}
