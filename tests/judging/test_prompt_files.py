"""Prompt files in and out: an export of every version re-imports as a no-op, an edited file
becomes the next version, and a problem anywhere saves nothing. Through the commands and the
prompts page's download and upload."""

import io
import zipfile

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from accounts.roles import Role
from audit.models import AuditEvent
from judging.models import PromptTemplate, PromptVersion
from judging.prompt_files import (
    PromptFilesRefused,
    all_files,
    import_prompt_files,
    version_file,
)
from judging.services import create_template, save_version

pytestmark = pytest.mark.django_db

TEXT = "Response: {{response}}\nCriterion: {{criterion}}\nAnswer true or false."


def stored() -> list[tuple[str, int, str, str, str]]:
    return list(
        PromptVersion.objects.order_by("template__name", "number").values_list(
            "template__name", "number", "style", "text", "note"
        )
    )


@pytest.fixture
def house():
    first = create_template("house", TEXT, description="Ours.", by=None)
    return save_version(first.template, TEXT + "\nBe strict.", style="binary", note="v2", by=None)


def as_bytes(files):
    return [(name, content.encode()) for name, content in files]


def test_an_export_of_every_version_imports_again_as_nothing_new(house):
    before, events = stored(), AuditEvent.objects.count()
    imported = import_prompt_files(as_bytes(all_files()), by=None)
    assert stored() == before and AuditEvent.objects.count() == events
    assert len(imported) == len(before) and not any(item.made for item in imported)
    assert {item.file for item in imported} >= {"house/v1.md", "house/v2.md"}


def test_an_edited_file_becomes_the_next_version_and_keeps_its_note(house):
    name, content = version_file(house)
    edited = content.replace("Be strict.", "Be lenient.").replace("note: v2", "note: Softer.")
    (item,) = import_prompt_files([(name, edited.encode())], by=None)
    assert item.made and (item.version.number, item.version.note) == (3, "Softer.")
    assert item.version.text == TEXT + "\nBe lenient."
    assert PromptVersion.objects.get(template__name="house", number=2).text == TEXT + "\nBe strict."


def test_a_file_of_an_old_version_edited_is_the_latest_version_not_a_rewrite(house):
    _, content = version_file(PromptVersion.objects.get(template__name="house", number=1))
    (item,) = import_prompt_files(
        [("v1.md", content.replace("false.", "false!").encode())], by=None
    )
    assert (item.made, item.version.number) == (True, 3)
    assert PromptVersion.objects.get(template__name="house", number=1).text == TEXT


def test_a_new_prompt_is_made_with_its_description_and_note():
    content = (
        f"---\nname: fresh\nstyle: critique\ndescription: New.\nnote: From our repo.\n---\n{TEXT}\n"
    )
    (item,) = import_prompt_files([("fresh.md", content.encode())], by=None)
    assert (item.made, str(item.version), item.version.style) == (True, "fresh@1", "critique")
    assert (item.version.template.description, item.version.note) == ("New.", "From our repo.")


def test_one_bad_file_saves_nothing_and_every_problem_is_named(house):
    before = stored()
    good = f"---\nname: fresh\n---\n{TEXT}\n".encode()
    bad = b"---\nname: other\nstyle: loud\n---\nNo slots here.\n"
    with pytest.raises(PromptFilesRefused) as refused:
        import_prompt_files([("fresh.md", good), ("other.md", bad)], by=None)
    assert refused.value.messages == [
        "other.md: line 3: field 'style': 'loud' is not a style; the styles are binary, critique",
        "other.md: line 5: field 'text': the template never shows the judge the {{response}}",
        "other.md: line 5: field 'text': the template never shows the judge the {{criterion}}",
    ]
    assert stored() == before and not PromptTemplate.objects.filter(name="fresh").exists()


def test_two_texts_for_one_version_are_refused_and_two_copies_are_one():
    content = f"---\nname: fresh\n---\n{TEXT}\n"
    other = content.replace("false.", "false!")
    with pytest.raises(PromptFilesRefused, match=r"b.md: line 1: field 'name': a.md gives this"):
        import_prompt_files([("a.md", content.encode()), ("b.md", other.encode())], by=None)
    copies = [("a.md", content.encode()), ("copy/a.md", content.encode())]
    assert [item.made for item in import_prompt_files(copies, by=None)] == [True, False]


def test_the_commands_export_and_import_a_folder(house, tmp_path):
    call_command("export_prompts", str(tmp_path), stdout=io.StringIO())
    assert (tmp_path / "house" / "v2.md").read_text() == version_file(house)[1]
    call_command("export_prompts", str(tmp_path / "repo"), "--latest", stdout=io.StringIO())
    assert (tmp_path / "repo" / "house.md").read_text() == version_file(house)[1]
    out = io.StringIO()
    call_command("import_prompts", str(tmp_path), stdout=out)
    assert "0 new versions" in out.getvalue()
    (tmp_path / "repo" / "house.md").write_text(version_file(house)[1].replace("strict", "fair"))
    call_command("import_prompts", str(tmp_path / "repo" / "house.md"), stdout=out)
    assert "house.md: new version house@3" in out.getvalue()


def test_the_import_command_lists_every_problem_and_fails(tmp_path):
    (tmp_path / "bad.md").write_text("---\nname: x\nversion: two\n---\n{{response}}{{criterion}}")
    with pytest.raises(CommandError, match=r"bad.md: line 3: field 'version'"):
        call_command("import_prompts", str(tmp_path), stdout=io.StringIO())


def test_the_export_command_writes_one_named_version(house, tmp_path):
    call_command("export_prompts", str(tmp_path), "house@1", stdout=io.StringIO())
    assert "version: 1\n" in (tmp_path / "house.md").read_text()
    with pytest.raises(CommandError, match="No prompt version 'nothing'"):
        call_command("export_prompts", str(tmp_path), "nothing", stdout=io.StringIO())


def test_the_page_downloads_one_version_and_every_version(house, client_as):
    client = client_as(Role.MAINTAINER)
    one = client.get(reverse("judging:prompt_download", args=[house.pk]))
    assert one["Content-Disposition"] == 'attachment; filename="house.md"'
    assert one.content.decode() == version_file(house)[1]
    every = client.get(reverse("judging:prompts_download"))
    names = zipfile.ZipFile(io.BytesIO(every.content)).namelist()
    assert {"prompts/house/v1.md", "prompts/house/v2.md"} <= set(names)


def test_the_page_uploads_an_archive_back_as_nothing_new(house, client_as):
    client = client_as(Role.MAINTAINER)
    archive = client.get(reverse("judging:prompts_download")).content
    before = stored()
    upload = io.BytesIO(archive)
    upload.name = "prompts.zip"
    page = client.post(
        reverse("judging:prompts_upload"), {"files": upload}, headers={"HX-Request": "true"}
    )
    assert page.status_code == 200 and "unchanged, house@2" in page.content.decode()
    assert stored() == before


def test_the_page_shows_every_problem_of_an_upload_and_saves_nothing(client_as):
    upload = io.BytesIO(b"---\nname: fresh\n---\nNothing to judge.\n")
    upload.name = "fresh.md"
    page = client_as(Role.MAINTAINER).post(reverse("judging:prompts_upload"), {"files": upload})
    assert page.status_code == 422
    assert "fresh.md: line 4: field &#x27;text&#x27;" in page.content.decode()
    assert not PromptTemplate.objects.filter(name="fresh").exists()


def test_the_page_refuses_uploads_larger_together_than_the_limit(client_as, monkeypatch):
    monkeypatch.setattr("judging.prompt_files.MAX_UPLOAD_BYTES", 100)
    uploads = []
    for name in ("a.md", "b.md"):
        upload = io.BytesIO(f"---\nname: {name[0]}\n---\n{TEXT}\n".encode())
        upload.name = name
        uploads.append(upload)
    page = client_as(Role.MAINTAINER).post(reverse("judging:prompts_upload"), {"files": uploads})
    assert page.status_code == 422 and "b.md: the files uploaded together" in page.content.decode()
    assert not PromptTemplate.objects.filter(name__in=["a", "b"]).exists()
