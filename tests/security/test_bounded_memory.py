"""What a request or an uploaded file costs the server is bounded by settings, whatever it holds.

Measured before these bounds: an 82 KB `.eval` upload took the worker from 111 MB to 2.27 GB
(a member unpacking to 80 MB of `{},`), a 306 KB backup 1 GB to restore, a 5 MB judge answer
made a 20 MB triage page and a 60 MB API page, and a 1.9 MB preview request was answered with
14 MB (a message for each of its unknown ids). The memory of reading a file is measured in a
process of its own (its peak resident memory, VmHWM), as the worker would spend it.
"""

import json
import subprocess
import sys
import textwrap
import zipfile

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken
from accounts.roles import Role
from core.formats.jsonl import MAX_LINE_BYTES
from grading.models import Study
from judging.models import JudgeRun, JudgeVerdict
from judging.output import stored_output
from judging.verdict_import import import_verdicts
from tests.factories import graded_demo_study, judge_run


@pytest.fixture
def api_as(make_user):
    def client(role: Role) -> APIClient:
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Token {ApiToken.issue(make_user(role), 't')[1]}")
        return api

    return client


# What reading may add to the process, on top of what it holds before: the worker starts at
# about 110 MB, and must stay under 300 MB.
READING_BUDGET_MB = 120


def peak_megabytes_reading(code: str) -> tuple[float, float, str]:
    """(megabytes before, megabytes at the peak, what `code` printed), `code` run in a fresh
    Python process after the readers are imported (Linux: /proc/self/status)."""
    program = (
        textwrap.dedent(
            """
        from pathlib import Path
        from core.formats.inspect_eval import read_inspect_eval
        from core.formats.jsonl import iter_jsonl
        def megabytes():  # the peak of this process (ru_maxrss starts at its parent's)
            status = Path("/proc/self/status").read_text()
            line = next(line for line in status.splitlines() if line.startswith("VmHWM:"))
            return int(line.split()[1]) / 1024
        before = megabytes()
        """
        )
        + textwrap.dedent(code)
        + "\nprint(before, megabytes())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True, timeout=300
    )
    *printed, last = done.stdout.strip().splitlines()
    before, peak = map(float, last.split())
    return before, peak, "\n".join(printed)


def eval_bomb(path, member_bytes: int):
    """An `.eval` log whose one sample unpacks to `member_bytes` of empty objects: a few dozen
    kilobytes of archive."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        header = {"status": "success", "eval": {"model": "m/x", "task": "t"}}
        archive.writestr("header.json", json.dumps(header))
        with archive.open("samples/1_epoch_1.json", "w") as member:
            member.write(b"[")
            chunk = b"{}," * (1024 * 1024 // 3)
            for _ in range(member_bytes // len(chunk)):
                member.write(chunk)
            member.write(b"{}]")
    return path


@pytest.mark.parametrize("megabytes", [80, 20], ids=["over-the-size", "over-the-values"])
def test_an_eval_log_that_unpacks_hugely_is_refused_in_bounded_memory(tmp_path, megabytes):
    path = eval_bomb(tmp_path / "bomb.eval", megabytes * 1024 * 1024)
    assert path.stat().st_size < 200_000
    before, peak, printed = peak_megabytes_reading(
        f"""
        result = read_inspect_eval(Path({str(path)!r}), judge_model="m/j")
        print(*(str(p) for p in result.problems), sep="\\n")
        """
    )
    assert peak - before < READING_BUDGET_MB, (before, peak)
    refusal = "unpacks to" if megabytes == 80 else "values, more than the 1,000,000 read at once"
    assert "samples/1_epoch_1.json" in printed and refusal in printed, printed


def test_an_eval_log_of_many_samples_of_long_explanations_stops_in_bounded_memory(tmp_path):
    """Each sample within the member limits, and as many as the archive holds: a thousand
    would be 20 GB of explanations in a few megabytes of archive, all held until the log is
    checked."""
    path = tmp_path / "many.eval"
    explanation = "it loops " * 2_200_000  # 20 MB
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        header = {"status": "success", "eval": {"model": "m/x", "task": "t"}}
        archive.writestr("header.json", json.dumps(header))
        for n in range(1, 11):
            result = {"criterion_id": "c", "weight": 1, "judgement": True, "explanation": ""}
            scores = {
                "s": {"metadata": {"scoring_results": [result | {"explanation": explanation}]}}
            }
            sample = {"id": str(n), "epoch": 1, "scores": scores, "output": {"completion": "x"}}
            archive.writestr(f"samples/{n}_epoch_1.json", json.dumps(sample))
    assert path.stat().st_size < 2_000_000
    before, peak, printed = peak_megabytes_reading(
        f"""
        result = read_inspect_eval(Path({str(path)!r}), judge_model="m/j")
        print(len(result.verdicts), *(str(p) for p in result.problems), sep="\\n")
        """
    )
    assert peak - before < READING_BUDGET_MB, (before, peak)
    counted, problem = printed.splitlines()
    assert counted == "2"
    assert problem == (
        "many.eval: its responses and explanations add up to more than 32,000,000 characters, "
        "more than one import holds: split the log (read up to samples/2_epoch_1.json)"
    )


def test_a_json_lines_file_with_one_huge_line_is_read_in_bounded_memory(tmp_path):
    path = tmp_path / "lines.jsonl"
    with path.open("wb") as handle:
        handle.write(b'{"a": 1}\n{"b": "')
        for _ in range(MAX_LINE_BYTES // (1024 * 1024) + 8):
            handle.write(b"x" * 1024 * 1024)
        handle.write(b'"}\n{"c": 3}\n[' + b"{}," * 600_000 + b"{}]\n")
    before, peak, printed = peak_megabytes_reading(
        f"""
        problems = []
        found = list(iter_jsonl(Path({str(path)!r}), problems))
        print(found)
        print(*(str(p) for p in problems), sep="\\n")
        """
    )
    assert peak - before < READING_BUDGET_MB, (before, peak)
    lines = printed.splitlines()
    assert lines[0] == "[(1, {'a': 1}), (3, {'c': 3})]"
    assert lines[1] == "lines.jsonl: line 2: longer than 33,554,432 bytes: not read"
    assert lines[2] == (
        "lines.jsonl: line 4: not valid JSON (holds about 1,200,003 values, more than the "
        "1,000,000 read at once)"
    )


def test_a_json_body_of_a_million_values_is_refused_before_it_is_read(api_as, db):
    body = "[" + "{}," * 600_000 + "{}]"
    answer = api_as(Role.MAINTAINER).generic(
        "POST", reverse("api:competency-list"), body, "application/json"
    )
    assert answer.status_code == 400
    assert "values, more than the 1,000,000 read at once" in answer.json()["detail"]


def backup_bomb(path, document_bytes: int):
    with (
        zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive,
        archive.open("study.json", "w") as member,
    ):
        member.write(b'{"format": "l2annot-study-backup", "version": 2, "objects": [')
        chunk = b"{}," * (1024 * 1024 // 3)
        for _ in range(document_bytes // len(chunk)):
            member.write(chunk)
        member.write(b"{}]}")
    return path


def test_a_backup_that_unpacks_hugely_is_refused_before_it_is_read(db, tmp_path):
    path = backup_bomb(tmp_path / "bomb.zip", 300 * 1024 * 1024)
    assert path.stat().st_size < 400_000
    with pytest.raises(CommandError, match=r"more than the 50,331,648 this server restores"):
        call_command("restore_study", str(path))


def test_a_backup_of_too_many_values_is_refused_before_it_is_read(db, tmp_path):
    path = backup_bomb(tmp_path / "bomb.zip", 30 * 1024 * 1024)
    with pytest.raises(CommandError, match=r"values, more than the 1,500,000 this server"):
        call_command("restore_study", str(path))


# ----- a judge's answer of megabytes ---------------------------------------------------------


@pytest.fixture(scope="module")
def judged(module_db) -> tuple[int, int]:
    study = graded_demo_study()
    return study.pk, judge_run(study, "v1", fails_universal=True).pk


def test_a_judge_answer_of_megabytes_is_stored_capped_with_a_visible_marker(
    judged, db, tmp_path, settings
):
    settings.JUDGE_RATIONALE_MAX_CHARS = 20_000
    verdict = JudgeVerdict.objects.filter(run_id=judged[1]).select_related(
        "response__task", "criterion_version__criterion", "run"
    )[0]
    line = {
        "response_id": verdict.response.external_id,
        "criterion_id": verdict.criterion_version.criterion.code,
        "verdict": "fail",
        "judge_model": "judge-m",
        "prompt_version": "v1",
        "rationale": "Because " + "it loops " * 600_000,
    }
    path = tmp_path / "verdicts.jsonl"
    path.write_text(json.dumps(line))
    report = import_verdicts(path, verdict.response.task.framework)
    assert report.ok, [str(p) for p in report.problems]
    stored = JudgeVerdict.objects.get(pk=verdict.pk).rationale
    assert stored.startswith("Because it loops")
    assert stored.endswith("\n[… 5,380,008 more characters of the judge's output not stored]")
    assert len(stored) < 20_100


def test_pages_and_the_api_showing_a_capped_answer_stay_small(judged, db, client_as, api_as):
    study, run = Study.objects.get(pk=judged[0]), JudgeRun.objects.get(pk=judged[1])
    answer = stored_output('"<quoted>" ' * 500_000)  # HTML escapes each quote in six bytes
    JudgeVerdict.objects.filter(run=run).update(rationale=answer)
    page = client_as(Role.MAINTAINER).get(reverse("judging:triage", args=[study.pk, run.pk]))
    assert page.status_code == 200 and "not stored]" in page.text
    assert len(page.content) < 4_000_000  # 20 cards of at most 20,000 characters each
    listing = api_as(Role.MAINTAINER).get(reverse("api:judgeverdict-list"), {"run": run.pk})
    assert listing.status_code == 200 and len(listing.content) < 1_500_000  # 50 a page


# ----- previews ------------------------------------------------------------------------------


def test_a_study_preview_of_a_hundred_thousand_unknown_ids_is_a_short_refusal(api_as, db):
    body = {"responses": list(range(10**8, 10**8 + 100_000)), "annotators": []}
    answer = api_as(Role.ADMIN).post(reverse("api:study-preview"), body, format="json")
    assert answer.status_code == 400
    assert answer.json()["errors"] == {
        "responses": ["At most 20,000 items; this list has 100,000."]
    }


def test_an_invalid_body_is_answered_with_at_most_two_hundred_messages(api_as, db):
    body = {f"field{n}": 0 for n in range(5_000)}
    answer = api_as(Role.ADMIN).post(reverse("api:study-preview"), body, format="json")
    assert answer.status_code == 400 and len(answer.content) < 30_000
    errors = answer.json()["errors"]
    assert len(errors) == 201 and errors["field0"] == ["Unknown field."]
    assert errors["non_field_errors"] == ["... and 4,800 more messages like these, not shown."]


def test_a_prompt_preview_of_megabytes_is_refused_and_its_answer_is_small(client_as, db):
    text = "{{response}} {{criterion}} " + "{{unknown}} " * 160_000
    answer = client_as(Role.MAINTAINER).post(
        reverse("judging:prompt_preview"), {"text": text}, headers={"HX-Request": "true"}
    )
    assert answer.status_code == 200 and len(answer.content) < 10_000
    assert "A prompt is at most 50,000 characters long; this one has" in answer.text


def test_a_prompt_filling_many_copies_of_a_response_shows_the_beginning(judged, db, client_as):
    text = "{{criterion}} " + "{{response}}" * 4_000
    answer = client_as(Role.MAINTAINER).post(
        reverse("judging:prompt_preview"),
        {"text": text, "study": judged[0]},
        headers={"HX-Request": "true"},
    )
    assert answer.status_code == 200
    assert len(answer.content) < 1_500_000  # 200,000 characters, HTML-escaped
    assert "more characters, not shown." in answer.text
