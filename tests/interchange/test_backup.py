"""backup_study and restore_study: a study, flushed away and restored, gives the same agreement,
and its task resource files come back byte for byte, never outside MEDIA_ROOT."""

import hashlib
import json
import re
import shutil
import zipfile
from io import StringIO

import pytest
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import Group
from django.core.cache import cache
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db.models import Q
from django.test import override_settings

from accounts.models import ApiToken, User
from accounts.roles import Role
from accounts.services import role_of
from accounts.usernames import username_key
from agreement.models import AnalysisSettings
from agreement.services import study_report
from grading import services as grading
from grading.models import GoldVerdict, Grade, Study, Verdict
from interchange import backup_files
from interchange.backup import backed_up_models
from judging.models import JudgeRating, JudgeRun, JudgeVerdict, PromptTemplate
from l2annot.commands import environment_language
from rubrics.models import Response, TaskResource
from rubrics.services import record_response
from taxonomy.models import Framework
from tests import factories
from tests.factories import demo_benchmark_and_graders, grade_study

# A restore nests in the test's transaction (its atomic block is a savepoint there); the tests
# that flush the database between a backup and its restore commit for real.
pytestmark = pytest.mark.django_db
flushes_between = pytest.mark.django_db(transaction=True)


WORKSHEET = b"%PDF-1.4 worksheet for the lesson\n"
RECORDING = bytes(range(256)) * 64  # binary, and larger than one line


@pytest.fixture
def media(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    return settings.MEDIA_ROOT


def build_pilot_study():
    """A study graded by three experts, with gold, judge verdicts and ratings, analysis
    settings and two task resource files (written to MEDIA_ROOT)."""
    framework, graders = demo_benchmark_and_graders(3)
    study = grading.create_study(
        name="Pilot",
        framework=framework,
        responses=list(Response.objects.order_by("pk")[:3]),
        annotators=graders,
        overlap=3,
        seed=1,
        require_rationale_on_fail=False,
        likert_prompts=["Is this task authentic?"],
    )
    grading.assign_study(study)
    grade_study(
        study,
        graders,
        lambda index, _, n, __: Verdict.FAIL if (n + index) % 3 == 0 else Verdict.PASS,
        likert=lambda index, *_: 2 + index,
    )
    item = study.items.order_by("pk").first()
    line = item.rubric_version.effective_rubric()[0]
    GoldVerdict.objects.create(study_item=item, criterion_version=line.version, verdict="pass")
    run = JudgeRun.objects.create(judge_model="always-pass", prompt_version="v1")
    JudgeVerdict.objects.create(
        run=run, response=item.response, criterion_version=line.version, epoch=1, verdict=True
    )
    JudgeRating.objects.create(
        run=run, response=item.response, question=study.likert_items.first().key, value=4
    )
    AnalysisSettings.objects.create(study=study, resamples=200, seed=7)
    tasks = [response.task for response in Response.objects.order_by("pk")[:3]]
    for task, (title, name, content) in zip(
        tasks,
        [("Worksheet", "worksheet.pdf", WORKSHEET), ("Recording", "dialogue.mp3", RECORDING)],
        strict=False,
    ):
        TaskResource.objects.create(
            task=task, title=title, kind="file", file=ContentFile(content, name=name)
        )
    return study


@pytest.fixture
def study(db, media):
    return build_pilot_study()


@pytest.fixture(scope="module")
def pilot_backup(django_db_setup, django_db_blocker, tmp_path_factory):
    """The pilot study backed up once for the module's restore tests: (the archive, the
    MEDIA_ROOT its files were written to). The database is flushed again afterwards."""
    folder = tmp_path_factory.mktemp("pilot")
    with override_settings(MEDIA_ROOT=folder / "media"), django_db_blocker.unblock():
        study = build_pilot_study()
        call_command("backup_study", str(study.pk), output=folder / "pilot.zip")
        call_command("flush", interactive=False)
        cache.clear()
    return folder / "pilot.zip", folder / "media"


def resource_files():
    """{file name: bytes} of every file resource, read through the storage."""
    out = {}
    for resource in TaskResource.objects.filter(kind="file"):
        with resource.file.open("rb") as handle:
            out[resource.file.name] = handle.read()
    return out


def document_of(path):
    with zipfile.ZipFile(path) as archive:
        return json.loads(archive.read("study.json"))


def rewrite_archive(path, document=None, members=None):
    """Write the archive at `path` again with a changed document and/or extra/changed members."""
    with zipfile.ZipFile(path) as archive:
        contents = {info.filename: archive.read(info) for info in archive.infolist()}
    if document is not None:
        contents["study.json"] = json.dumps(document).encode()
    contents.update(members or {})
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in contents.items():
            archive.writestr(name, data)


@pytest.fixture
def backup(pilot_backup, media, tmp_path):
    """A copy of the pilot study's backup, with an empty database and the study's files still in
    this test's MEDIA_ROOT (as on the server it was backed up from)."""
    archive, files = pilot_backup
    shutil.copytree(files, media, dirs_exist_ok=True)
    path = tmp_path / "pilot.zip"
    shutil.copy(archive, path)
    return path


def figures(report):
    """Overall and per-criterion alpha with their bootstrap intervals, the raters, the scales."""
    criteria = [(c.criterion.key, c.agreement, c.validated) for c in report.criteria]
    return report.overall, criteria, report.by_layer, report.raters, report.scales


@flushes_between
def test_a_restored_study_gives_identical_agreement_figures_and_files(study, tmp_path, settings):
    before = figures(study_report(study))
    files = resource_files()
    assert sorted(files.values()) == sorted([WORKSHEET, RECORDING])
    grades = Grade.objects.count()
    path = tmp_path / "pilot.zip"
    call_command("backup_study", str(study.pk), output=path)
    document = document_of(path)
    users = [o for o in document["objects"] if o["model"] == "accounts.user"]
    assert users and all(u["fields"]["password"] == "" for u in users)
    assert {f["path"]: f["sha256"] for f in document["files"]} == {
        name: hashlib.sha256(content).hexdigest() for name, content in files.items()
    }

    call_command("flush", interactive=False)
    cache.clear()
    settings.MEDIA_ROOT = tmp_path / "fresh-server"  # the files exist only in the archive
    assert not Study.objects.exists()
    call_command("restore_study", str(path))

    restored = Study.objects.get(pk=study.pk)
    assert figures(study_report(restored)) == before
    assert resource_files() == files
    assert Grade.objects.count() == grades
    assert GoldVerdict.objects.count() == JudgeVerdict.objects.count() == 1
    assert JudgeRating.objects.get().value == 4
    annotator = User.objects.get(pk=restored.pool.first().annotator_id)
    assert not annotator.has_usable_password()
    assert role_of(annotator) is None  # an admin grants roles again
    Study.objects.create(name="After", framework=restored.framework)  # sequences moved on


def test_restore_accepts_identical_files_already_in_media_root(backup, media):
    files = {path: path.read_bytes() for path in media.rglob("*") if path.is_file()}
    out = StringIO()
    call_command("restore_study", str(backup), stdout=out)
    assert "0 resource files written to MEDIA_ROOT (2 already there)" in out.getvalue()
    assert {path: path.read_bytes() for path in media.rglob("*") if path.is_file()} == files
    assert Study.objects.count() == 1


def shell_language(monkeypatch, name, value):
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv(name, value)


def test_restore_speaks_the_language_of_the_shell_that_runs_it(backup, media, monkeypatch):
    shell_language(monkeypatch, "LANG", "es_ES.UTF-8")
    out = StringIO()
    call_command("restore_study", str(backup), stdout=out)
    assert "filas restauradas, 0 archivos de recursos escritos en MEDIA_ROOT (2 ya estaban)" in (
        out.getvalue()
    )


def test_a_refused_restore_says_why_in_the_language_of_the_shell(backup, media, monkeypatch):
    victim = sorted(path for path in media.rglob("*") if path.is_file())[0]
    victim.write_bytes(b"someone else's file")
    relative = victim.relative_to(media).as_posix()
    shell_language(monkeypatch, "LC_ALL", "es_ES.UTF-8")
    with pytest.raises(CommandError, match=f"MEDIA_ROOT ya contiene otro archivo {relative}"):
        call_command("restore_study", str(backup))


@pytest.mark.parametrize(
    ("environ", "language"),
    [
        ({"LANG": "es_ES.UTF-8"}, "es"),
        ({"LANGUAGE": "fr:es", "LANG": "en_GB.UTF-8"}, "es"),
        ({"LC_ALL": "en_US.UTF-8", "LANG": "es_MX.UTF-8"}, "en"),
        ({"LANG": "C.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_a_commands_language_is_the_first_the_shell_asks_for_that_the_app_ships(environ, language):
    assert environment_language(environ) == language


def test_restore_refuses_to_overwrite_a_different_file(backup, media):
    victim = sorted(path for path in media.rglob("*") if path.is_file())[0]
    victim.write_bytes(b"someone else's file")
    relative = victim.relative_to(media).as_posix()
    with pytest.raises(CommandError, match=f"already holds a different file {relative}"):
        call_command("restore_study", str(backup))
    assert victim.read_bytes() == b"someone else's file"
    assert not Study.objects.exists() and not User.objects.exists()


def test_a_file_that_cannot_be_written_rolls_back_the_rows_and_the_files(
    backup, settings, tmp_path, monkeypatch
):
    settings.MEDIA_ROOT = fresh = tmp_path / "fresh-server"
    fresh.mkdir()
    write = backup_files.FileWriter.write
    calls = []

    def write_then_fail(self, listed):
        calls.append(listed.path)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        write(self, listed)

    monkeypatch.setattr(backup_files.FileWriter, "write", write_then_fail)
    with pytest.raises(OSError, match="No space left"):
        call_command("restore_study", str(backup))
    assert len(calls) == 2
    assert list(fresh.rglob("*")) == []  # the first file and its folders are gone again
    assert not Study.objects.exists() and not User.objects.exists()


@pytest.mark.parametrize("evil", ["../outside.txt", "/tmp/l2annot-outside.txt", "a/../../x.txt"])
def test_restore_refuses_an_archive_member_outside_media_root(backup, media, tmp_path, evil):
    document = document_of(backup)
    content = b"payload"
    document["files"].append(
        {"path": evil, "sha256": hashlib.sha256(content).hexdigest(), "size": len(content)}
    )
    rewrite_archive(backup, document, {"media/" + evil: content})
    with pytest.raises(CommandError, match="Unsafe file path"):
        call_command("restore_study", str(backup))
    assert not (tmp_path / "outside.txt").exists() and not (tmp_path / "x.txt").exists()
    assert not Study.objects.exists()


def test_restore_refuses_a_damaged_file(backup, media):
    document = document_of(backup)
    name = document["files"][0]["path"]
    size = document["files"][0]["size"]
    rewrite_archive(backup, members={"media/" + name: b"x" * size})
    with pytest.raises(CommandError, match=f"{name} in the backup is damaged"):
        call_command("restore_study", str(backup))
    assert not Study.objects.exists()


def test_a_version_1_json_backup_still_restores_and_names_the_files_it_lacks(backup, tmp_path):
    document = document_of(backup)
    document["version"] = 1
    names = [f["path"] for f in document.pop("files")]
    del document["missing_files"]
    old = tmp_path / "pilot.json"
    old.write_text(json.dumps(document))
    err = StringIO()
    call_command("restore_study", str(old), stderr=err)
    assert Study.objects.count() == 1
    for name in names:
        assert f"not in the backup, copy it into MEDIA_ROOT: {name}" in err.getvalue()


def test_backup_names_a_resource_file_missing_from_media_root(study, media, tmp_path):
    lost = TaskResource.objects.filter(kind="file").first()
    (media / lost.file.name).unlink()
    path = tmp_path / "pilot.zip"
    with pytest.raises(CommandError, match=f"missing from MEDIA_ROOT: {lost.file.name}"):
        call_command("backup_study", str(study.pk), output=path)
    assert not path.exists()
    call_command("backup_study", str(study.pk), output=path, allow_missing_files=True)
    assert document_of(path)["missing_files"] == [lost.file.name]


def test_restore_refuses_a_database_that_is_not_empty(study, tmp_path):
    path = tmp_path / "pilot.zip"
    call_command("backup_study", str(study.pk), output=path)
    with pytest.raises(CommandError, match="not empty"):
        call_command("restore_study", str(path))
    assert Study.objects.count() == 1


def test_the_shipped_prompts_do_not_make_a_new_database_occupied_but_a_prompt_of_ones_own_does(
    backup,
):
    assert PromptTemplate.objects.exists()  # migrate ships them
    PromptTemplate.objects.create(name="my-own-prompt")
    with pytest.raises(CommandError, match=r"not empty \(judging.PromptTemplate\)"):
        call_command("restore_study", str(backup))


def test_restore_is_all_or_nothing(backup, settings, tmp_path):
    settings.MEDIA_ROOT = fresh = tmp_path / "fresh-server"
    document = document_of(backup)
    grade = next(o for o in document["objects"] if o["model"] == "grading.grade")
    grade["fields"]["assignment"] = 10**9  # points nowhere
    rewrite_archive(backup, document)
    with pytest.raises(Exception):  # noqa: B017 - the database's own integrity error
        call_command("restore_study", str(backup))
    assert not Study.objects.exists() and not User.objects.exists()
    assert not fresh.exists() or list(fresh.rglob("*")) == []


def test_restore_refuses_a_file_that_is_not_a_backup(db, tmp_path):
    path = tmp_path / "other.json"
    path.write_text('{"objects": []}')
    with pytest.raises(CommandError, match="Not a study backup"):
        call_command("restore_study", str(path))


def hostile_backup(tmp_path, *records):
    """A version 1 backup (a plain JSON document) holding `records`."""
    path = tmp_path / "crafted.json"
    document = {"format": "l2annot-study-backup", "version": 1, "study": {"id": 1, "name": "X"}}
    path.write_text(json.dumps({**document, "objects": list(records)}))
    return path


def test_restore_refuses_json_nested_too_deeply_to_read(db, tmp_path):
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000)
    with pytest.raises(CommandError, match="nested more deeply than Python can read"):
        call_command("restore_study", str(path))


def test_restore_refuses_a_field_nested_too_deeply_naming_record_and_field(db, tmp_path):
    # Deeper than Python's recursion limit (a recursive walk of the field would fail), within
    # what the JSON reader follows; written as text because json.dumps would recurse too.
    path = hostile_backup(
        tmp_path,
        {"model": "taxonomy.framework", "pk": 1, "fields": {"code": "fw", "name": "F"}},
        {"model": "grading.study", "pk": 1, "fields": {"name": "DEEP"}},
    )
    path.write_text(path.read_text().replace('"DEEP"', "[" * 1200 + '"x"' + "]" * 1200))
    with pytest.raises(CommandError, match=r"Record 2 .*field 'name' is nested more than 32"):
        call_command("restore_study", str(path))
    assert not Study.objects.exists()


def test_restore_refuses_an_api_token_and_writes_nothing(backup):
    document = document_of(backup)
    user = next(o for o in document["objects"] if o["model"] == "accounts.user")
    planted = ApiToken.hash_key("l2a_planted")
    document["objects"].append(
        {
            "model": "accounts.apitoken",
            "pk": 7,
            "fields": {"user": user["pk"], "name": "x", "key_hash": planted, "hint": "l2a_plan"},
        }
    )
    rewrite_archive(backup, document)
    number = len(document["objects"])
    with pytest.raises(
        CommandError, match=f"Record {number} of the backup \\(model 'accounts.apitoken', pk '7'\\)"
    ):
        call_command("restore_study", str(backup))
    assert not ApiToken.objects.exists()
    assert not Study.objects.exists() and not User.objects.exists()


@pytest.mark.parametrize(
    "record",
    [
        {"model": "auth.permission", "pk": 1, "fields": {"name": "x", "codename": "x"}},
        {"model": "auth.group", "pk": 99, "fields": {"name": "Superusers"}},
        {"model": "admin.logentry", "pk": 1, "fields": {"action_flag": 1}},
        {"model": "sessions.session", "pk": "k", "fields": {"session_data": "x"}},
        {"model": "no_such_app.thing", "pk": 1, "fields": {}},
    ],
    ids=lambda record: record["model"],
)
def test_restore_refuses_a_kind_of_row_a_backup_never_holds(db, tmp_path, record):
    framework = {"model": "taxonomy.framework", "pk": 1, "fields": {"name": "F", "code": "f"}}
    path = hostile_backup(tmp_path, framework, record)
    with pytest.raises(CommandError, match=f"Record 2 of the backup \\(model '{record['model']}'"):
        call_command("restore_study", str(path))
    assert not Framework.objects.exists()


@pytest.mark.parametrize("record", [["accounts.user"], {"model": "accounts.user"}])
def test_restore_refuses_a_malformed_record(db, tmp_path, record):
    with pytest.raises(CommandError, match="Record 1 of the backup is malformed"):
        call_command("restore_study", str(hostile_backup(tmp_path, record)))
    assert not User.objects.exists()


def test_a_user_claiming_privileges_is_restored_without_them(backup):
    document = document_of(backup)
    user = next(o for o in document["objects"] if o["model"] == "accounts.user")
    user["fields"].update(
        password=make_password("known-password"),
        is_superuser=True,
        is_staff=True,
        user_permissions=[["add_user", "accounts", "user"], ["grade", "accounts", "capability"]],
        groups=[*user["fields"]["groups"], ["Superusers"]],
    )
    role = user["fields"]["groups"][0][0]
    rewrite_archive(backup, document)
    call_command("restore_study", str(backup))

    restored = User.objects.get(pk=user["pk"])
    assert not restored.is_superuser and not restored.is_staff
    assert not restored.has_usable_password()
    assert not restored.user_permissions.exists()
    assert role and not restored.groups.exists()
    assert not Group.objects.filter(name="Superusers").exists()
    assert not User.objects.filter(Q(is_superuser=True) | Q(is_staff=True)).exists()


def test_a_user_claiming_the_admin_role_is_restored_without_any_role(backup):
    """A crafted backup naming a user of the Admin group, with the attacker's email: once the
    admin sends restored people their set-password links, the attacker would sign in as an
    admin. A restore brings people in without roles; an admin grants them."""
    document = document_of(backup)
    user = next(o for o in document["objects"] if o["model"] == "accounts.user")
    user["fields"].update(groups=[[Role.ADMIN.value]], email="attacker@example.org")
    rewrite_archive(backup, document)
    out = StringIO()
    call_command("restore_study", str(backup), stdout=out)

    restored = User.objects.get(pk=user["pk"])
    assert restored.username_key == username_key(restored.username)
    assert role_of(restored) is None and not restored.groups.exists()
    assert not User.objects.filter(groups__isnull=False).exists()
    people = User.objects.count()
    assert f"{people} people restored without a role" in out.getvalue()
    assert f"{restored.username} (attacker@example.org)" in out.getvalue()


def test_every_kind_of_row_in_a_backup_is_one_a_restore_accepts(study, tmp_path):
    path = tmp_path / "pilot.zip"
    call_command("backup_study", str(study.pk), output=path)
    written = {o["model"] for o in document_of(path)["objects"]}
    accepted = {model._meta.label_lower for model in backed_up_models()}
    assert written <= accepted
    assert {"accounts.apitoken", "auth.group", "auth.permission"}.isdisjoint(accepted)


def test_restore_refuses_a_nul_in_a_text_naming_record_and_field_and_writes_nothing(db, tmp_path):
    framework = {"model": "taxonomy.framework", "pk": 1, "fields": {"name": "F", "code": "f"}}
    bad = {"model": "taxonomy.framework", "pk": 2, "fields": {"name": "G\x00", "code": "g"}}
    path = hostile_backup(tmp_path, framework, bad)
    message = (
        "Record 2 of the backup (model 'taxonomy.framework', pk '2'): field 'name' holds the "
        "NUL character"
    )
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("restore_study", str(path))
    assert not Framework.objects.exists()


def stored_versions():
    """(pk, version, superseded, text) of every response, oldest version first."""
    return [
        (pk, version, superseded is not None, text)
        for pk, version, superseded, text in Response.objects.order_by("version").values_list(
            "pk", "version", "superseded_at", "text"
        )
    ]


@flushes_between
def test_a_restored_study_keeps_the_version_it_graded_and_the_response_history(
    db, media, tmp_path, make_user
):
    graders = [make_user(Role.ANNOTATOR), make_user(Role.ANNOTATOR)]
    study = factories.graded_imported_study(graders)
    graded = study.items.get().response
    newer, _ = record_response(
        graded.task, "model-a", text="Changed after grading.", external_id="r1",
        model_family="family-a", model_version="1.0",
    )  # fmt: skip
    versions = stored_versions()
    assert [(version, superseded) for _, version, superseded, _ in versions] == [
        (1, True),
        (2, False),
    ]
    path = tmp_path / "study.zip"
    call_command("backup_study", str(study.pk), output=path)

    call_command("flush", interactive=False)
    cache.clear()
    call_command("restore_study", str(path))

    assert stored_versions() == versions
    assert Study.objects.get(pk=study.pk).items.get().response_id == graded.pk
    assert Response.objects.current().get().pk == newer.pk


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        ({"name": "Pilot \ud800"}, r"field 'name' holds \\ud800, half of a surrogate pair"),
        ({"note\udfff": "x"}, r"field '' a key holds \\udfff, half of a surrogate pair"),
        (
            {"overlap": 10**400},
            r"field 'overlap' is an integer of 401 digits, outside what the database holds "
            r"\(0 to 32767\)",
        ),
        (
            {"overlap": 40_000},
            r"field 'overlap' is 40000, outside what the database holds \(0 to 32767\)",
        ),
    ],
    ids=["surrogate", "surrogate-key", "huge-integer", "integer-out-of-range"],
)
def test_restore_refuses_text_or_numbers_no_database_stores_naming_record_and_field(
    db, tmp_path, change, expected
):
    path = hostile_backup(
        tmp_path,
        {"model": "taxonomy.framework", "pk": 1, "fields": {"code": "fw", "name": "F"}},
        {"model": "grading.study", "pk": 1, "fields": {"name": "Pilot"} | change},
    )
    with pytest.raises(CommandError, match=r"Record 2 of the backup \(model 'grading.study', "):
        call_command("restore_study", str(path))
    with pytest.raises(CommandError, match=expected):
        call_command("restore_study", str(path))
    assert not Study.objects.exists() and not Framework.objects.exists()
