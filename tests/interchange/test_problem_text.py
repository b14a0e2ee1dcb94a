"""Import problems are stored as message ids with their values and read in the reader's
language (interchange.problem_text); every message the importers store is in the Spanish
catalogue."""

import ast

import pytest
from django.conf import settings
from django.utils import translation

from core.formats.problems import Problem, gettext_noop
from interchange.jobs import abandoned
from interchange.problem_text import (
    message_text,
    problem_text,
    stage_text,
    stored_line,
    stored_problems,
    summary_text,
)

NESTED = gettext_noop("expected a string, got %(got)s", got=gettext_noop("an integer"))


def shown(problem: object, language: str) -> str:
    with translation.override(language):
        return problem_text(problem)


def test_a_message_keeps_its_english_text_and_how_it_was_made():
    assert NESTED == "expected a string, got an integer"
    assert NESTED.as_json() == {
        "text": "expected a string, got %(got)s",
        "values": {"got": {"text": "an integer", "values": {}}},
    }


def test_a_template_declared_once_is_filled_where_written_and_may_hold_a_list():
    changed = gettext_noop("Imported from an L2-Bench file. Changed: %(changes)s.")
    named = [gettext_noop("instruction"), gettext_noop("task criteria"), "x"]
    filled = changed.fill(changes=named)
    assert filled == "Imported from an L2-Bench file. Changed: instruction, task criteria, x."
    assert filled.as_json()["values"] == {
        "changes": [
            {"text": "instruction", "values": {}},
            {"text": "task criteria", "values": {}},
            "x",
        ]
    }
    with translation.override("es"):
        assert message_text(filled.as_json()) == (
            "Importado de un archivo L2-Bench. Cambios: consigna, criterios de la tarea, x."
        )


@pytest.mark.parametrize(
    ("language", "text"),
    [
        ("en", "r.jsonl: line 3: field 'model': expected a string, got an integer"),
        ("es", "r.jsonl: línea 3: campo 'model': se esperaba una cadena y hay un entero"),
    ],
)
def test_a_stored_problem_is_read_in_the_readers_language(language, text):
    [stored] = stored_problems([Problem("r.jsonl", 3, "model", NESTED)])
    assert shown(stored, language) == text


def test_a_spreadsheet_problem_names_its_row():
    [stored] = stored_problems([Problem("w.xlsx", 4, None, gettext_noop("is empty"), "row")])
    assert shown(stored, "es") == "w.xlsx: fila 4: está vacío"
    assert shown(stored, "en") == "w.xlsx: row 4: is empty"


def test_the_uploaded_name_replaces_the_stored_files_and_other_files_keep_theirs():
    problems = [Problem("abc123.zip", None, None, "x"), Problem("l2-bench_tasks.csv", 2, None, "y")]
    stored = stored_problems(problems, names={"abc123.zip": "bench.zip"})
    assert [item["file"] for item in stored] == ["bench.zip", "l2-bench_tasks.csv"]


def test_a_message_not_written_for_translation_is_shown_as_written():
    stored = stored_line("r.jsonl", "a message from elsewhere")
    assert shown(stored, "es") == "r.jsonl: a message from elsewhere"


def test_a_problem_stored_as_a_line_of_text_is_shown_as_it_is():
    assert shown("r.jsonl: line 1: is empty", "es") == "r.jsonl: line 1: is empty"


def test_the_problems_past_the_first_ones_are_counted_by_field_in_the_readers_language():
    problems = [Problem("f.csv", n, "task_criteria", "bad") for n in range(1, 1206)]
    problems += [Problem("g.csv", None, None, "bad")]  # after f.csv
    stored = stored_problems(problems, shown=2)
    assert len(stored) == 3
    assert shown(stored[-1], "en") == (
        "… and 1,204 more problems not listed: 1,203 in field 'task_criteria', 1 with no field"
    )
    assert shown(stored[-1], "es") == (
        "… y 1\xa0204 problemas más que no se listan: 1\xa0203 en el campo 'task_criteria', "
        "1 sin campo"
    )


def test_a_translation_that_lost_a_placeholder_falls_back_to_english(monkeypatch):
    monkeypatch.setattr("interchange.problem_text.gettext", lambda text: "roto %(otro)s")
    stored = stored_line("f", gettext_noop("is %(size)s bytes, over the limit", size=9))
    assert message_text(stored["message"]) == "is 9 bytes, over the limit"


COUNTS = {
    "tasks": {"created": 3, "updated": 0, "unchanged": 1},
    "sub-competencies": {"created": 1, "updated": 0, "unchanged": 0},
}
SUMMARY = (
    "tasks: 3 created, 0 updated, 1 unchanged; sub-competencies: 1 created, 0 updated, "
    "0 unchanged Created as placeholders to be named: 09z under 09. Name them in the taxonomy."
)


def test_an_earlier_imports_counts_are_read_in_the_readers_language_and_its_notes_kept():
    with translation.override("es"):
        text = summary_text(SUMMARY, COUNTS, dry_run=False)
    assert text == (
        "tareas: 3 altas, 0 modificaciones, 1 sin cambios; subcompetencias: 1 altas, "
        "0 modificaciones, 0 sin cambios Created as placeholders to be named: 09z under 09. "
        "Name them in the taxonomy."
    )
    with translation.override("en"):
        assert summary_text(SUMMARY, COUNTS, dry_run=False) == SUMMARY


def test_a_finished_imports_stored_notes_are_read_in_the_readers_language():
    note = gettext_noop(
        "Created as placeholders to be named (each with its competency): %(listed)s.",
        listed="09z (09)",
    )
    counts = {"sub-competencies": {"created": 1, "updated": 0, "unchanged": 0}}
    with translation.override("es"):
        text = summary_text(str(note), counts, dry_run=False, notes=[note.as_json()])
    assert text == (
        "subcompetencias: 1 altas, 0 modificaciones, 0 sin cambios Creadas como provisionales, "
        "a falta de nombre (cada una con su competencia): 09z (09)."
    )


def test_an_offline_uploads_stored_notes_are_read_without_counts():
    line = gettext_noop("%(level)s is not Pass, Fail or N/A", level=7)
    with translation.override("es"):
        assert summary_text("ignored", {}, dry_run=False, notes=[line.as_json()]) == (
            "7 no es Pass, Fail ni N/A"
        )


def test_a_dry_runs_summary_says_nothing_was_written_in_the_readers_language():
    counts = {"responses": {"created": 2, "updated": 0, "unchanged": 0}}
    english = "responses: 2 created, 0 updated, 0 unchanged (dry run: nothing was written)"
    with translation.override("es"):
        assert summary_text(english, counts, dry_run=True) == (
            "respuestas: 2 altas, 0 modificaciones, 0 sin cambios (simulación: no se escribió nada)"
        )


def test_an_earlier_summary_without_counts_is_shown_as_it_is():
    offline = "answers: 1 changed, 0 unchanged; ratings: 0 changed, 0 unchanged; 0 submitted"
    with translation.override("es"):
        assert summary_text(offline, {}, dry_run=False) == offline


def test_a_running_imports_stage_is_read_in_the_readers_language():
    with translation.override("es"):
        assert stage_text("checking tasks") == "comprobación de las tareas"
        assert stage_text("a stage of its own") == "a stage of its own"


def test_a_job_whose_worker_died_names_its_stage_in_the_readers_language():
    stored = stored_line("bench.zip", abandoned("writing"))
    with translation.override("es"):
        assert "durante la etapa «escritura»" in problem_text(stored)
    with translation.override("en"):
        assert "while writing; the import is all or nothing" in problem_text(stored)


def stored_templates() -> list[tuple[str, str]]:
    """(module, template) for every gettext_noop(...) and Text.ngettext(...) of the code that
    writes messages read later (imports, jobs, the statistics of cached reports, histories): each is
    translated where it is read. A template with a plural is named by its singular form."""
    found = []
    for folder in ("core", "interchange", "agreement", "judging", "rubrics", "people", "grading"):
        for path in sorted((settings.BASE_DIR / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if not isinstance(node, ast.Call):
                    continue
                noop = isinstance(node.func, ast.Name) and node.func.id == "gettext_noop"
                # Text.ngettext with its forms written out (interchange.refusals passes on
                # those of Django's own validators, in Django's catalogue).
                plural = (
                    isinstance(node.func, ast.Attribute)
                    and node.func.attr == "ngettext"
                    and isinstance(node.args[0], ast.Constant)
                )
                if not (noop or plural):
                    continue
                module = path.relative_to(settings.BASE_DIR).as_posix()
                forms = node.args[: 2 if plural else 1]
                assert all(isinstance(a, ast.Constant) for a in forms), f"{module}: a literal"
                template = str(forms[0].value)
                found.append((module, (template, 0) if plural else template))
    return found


def test_the_check_sees_the_importers_messages():
    modules = {module for module, _ in stored_templates()}
    assert {"interchange/jobs.py", "core/formats/jsonl.py"} <= modules
    assert "interchange/importers/benchmark.py" in modules
    assert {"core/stats/intervals.py", "core/analysis/comparison.py"} <= modules


@pytest.mark.parametrize(("module", "template"), stored_templates(), ids=lambda v: v[:50])
def test_every_stored_message_is_translated(module, template):
    catalogue = translation.trans_real.translation("es")._catalog
    assert template in catalogue, f"{module}: translate {template!r} in the catalogue"
