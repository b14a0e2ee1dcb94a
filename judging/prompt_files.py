"""Judge prompts to and from files (`core.formats.prompt_files`: Markdown with a YAML front
matter), for the prompts page's download and upload and the `export_prompts` and
`import_prompts` commands.

An import only ever adds versions: a file equal to the version it names (or, naming none, to
its prompt's latest) is that version and changes nothing; any other file is its prompt's next
version, through `judging.services` as a text saved on the page. It is all or nothing: one
problem anywhere, listed with its file, line and field, and nothing is saved."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext

from accounts.models import User
from core.formats.problems import Problem, gettext_noop, in_order
from core.formats.prompt_files import (
    SUFFIX,
    PromptFile,
    file_name,
    read_prompt_file,
    write_prompt_file,
)
from interchange.problem_text import problem_text
from judging.models import PromptTemplate, PromptVersion
from judging.services import create_template, save_version

# An upload's bounds: prompts are a few kilobytes each, a team keeps tens of them.
MAX_FILES = 500
MAX_UPLOAD_BYTES = 32 * 1024 * 1024  # an uploaded file, and what an archive unpacks to


class PromptFilesRefused(ValidationError):
    """The files hold problems (`problems`, in the order a person fixes them): nothing saved."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = in_order(problems)
        super().__init__([problem_text(problem) for problem in self.problems])


@dataclass(frozen=True)
class Imported:
    """What one file became: `version`, made by this import (`made`) or already there."""

    file: str
    version: PromptVersion
    made: bool


def as_file(version: PromptVersion) -> PromptFile:
    return PromptFile(
        name=version.template.name,
        text=version.text,
        style=version.style,
        version=version.number,
        description=version.template.description,
        note=version.note,
    )


def version_file(version: PromptVersion) -> tuple[str, str]:
    """One version as `<name>.md` and its content."""
    return file_name(version.template.name), write_prompt_file(as_file(version))


def all_files(*, latest_only: bool = False) -> list[tuple[str, str]]:
    """Every version of every prompt as `<name>/v<number>.md`, or with `latest_only` the latest
    of each as `<name>.md` (a repository's layout)."""
    versions = PromptVersion.objects.select_related("template").order_by(
        "template__name", "-number"
    )
    if latest_only:
        latest: dict[str, PromptVersion] = {}
        for version in versions:
            latest.setdefault(version.template.name, version)
        return [version_file(version) for version in latest.values()]
    return [(file_name(v.template.name, v.number), write_prompt_file(as_file(v))) for v in versions]


def zip_of(files: Iterable[tuple[str, str]]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files:
            archive.writestr(f"prompts/{name}", content)
    return buffer.getvalue()


def max_file_bytes() -> int:
    """The largest prompt file read: the longest text (4 bytes a character at most in UTF-8)
    with room for its front matter."""
    return 4 * settings.JUDGE_PROMPT_MAX_CHARS + 64 * 1024


def unpacked(name: str, data: bytes) -> list[tuple[str, bytes]]:
    """An uploaded file as the prompt files it holds: itself, or a ZIP archive's `.md`
    members (named `archive.zip/member`). Raises PromptFilesRefused for an archive that cannot
    be read or holds too much."""
    if not name.lower().endswith(".zip"):
        return [(name, data)]
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = [
                member
                for member in archive.infolist()
                if not member.is_dir() and member.filename.lower().endswith(SUFFIX)
            ]
            if len(members) > MAX_FILES:
                raise _refused(name, gettext_noop("more than %(most)s files", most=MAX_FILES))
            too_big = [m.filename for m in members if m.file_size > max_file_bytes()]
            if sum(m.file_size for m in members) > MAX_UPLOAD_BYTES:
                raise _refused(name, gettext_noop("unpacks to more than 32 MiB"))
            if too_big:
                raise _refused(f"{name}/{too_big[0]}", gettext_noop("too large for a prompt"))
            return [(f"{name}/{m.filename}", archive.read(m)) for m in members]
    except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, EOFError):
        raise _refused(name, gettext_noop("not a ZIP archive that can be read")) from None


def _refused(file: str, message: str) -> PromptFilesRefused:
    return PromptFilesRefused([Problem(file, None, None, message)])


def read_files(files: Sequence[tuple[str, bytes]]) -> list[PromptFile]:
    """The prompt versions `files` hold, checked together; PromptFilesRefused lists every
    problem of every file."""
    problems: list[Problem] = []
    if not files:
        raise PromptFilesRefused([Problem("-", None, None, gettext_noop("no prompt file"))])
    if len(files) > MAX_FILES:
        raise _refused("-", gettext_noop("more than %(most)s files", most=MAX_FILES))
    read: list[PromptFile] = []
    first_of: dict[tuple[str, int | None], PromptFile] = {}
    for name, data in files:
        if len(data) > max_file_bytes():
            problems.append(Problem(name, None, None, gettext_noop("too large for a prompt")))
            continue
        prompt, found = read_prompt_file(name, data, max_chars=settings.JUDGE_PROMPT_MAX_CHARS)
        problems += found
        if prompt is None:
            continue
        first = first_of.setdefault(prompt.key(), prompt)
        if (first.text, first.style) != (prompt.text, prompt.style):
            # Two texts for one version, or for a prompt's next one: which would be the
            # prompt's latest text would depend on the order of the files.
            problems.append(
                Problem(
                    name,
                    1,
                    "version" if prompt.version is not None else "name",
                    gettext_noop(
                        "%(file)s gives this prompt version another text: one file per version",
                        file=first.file,
                    ),
                )
            )
            continue
        read.append(prompt)
    if problems:
        raise PromptFilesRefused(problems)
    return read


@transaction.atomic
def import_prompt_files(files: Sequence[tuple[str, bytes]], *, by: User | None) -> list[Imported]:
    """Import prompt files (name, bytes): all of them, or nothing (PromptFilesRefused).

    A prompt's files are taken in the order of the versions they name, the one naming none
    last, so that re-importing an export of every version changes nothing and a file edited
    in a repository becomes the latest version."""
    prompts = read_files(files)
    prompts.sort(key=lambda p: (p.name, p.version is None, p.version or 0))
    templates = {
        t.name: t for t in PromptTemplate.objects.filter(name__in={p.name for p in prompts})
    }
    done: list[Imported] = []
    for prompt in prompts:
        template = templates.get(prompt.name)
        try:
            if template is None:
                version = create_template(
                    prompt.name,
                    prompt.text,
                    style=prompt.style,
                    description=prompt.description,
                    note=prompt.note or gettext("Imported from %(file)s.") % {"file": prompt.file},
                    by=by,
                )
                templates[prompt.name] = version.template
                done.append(Imported(prompt.file, version, made=True))
                continue
            named = (
                template.versions.filter(number=prompt.version).first()
                if prompt.version is not None
                else None
            )
            if named is not None and (named.text, named.style) == (prompt.text, prompt.style):
                done.append(Imported(prompt.file, named, made=False))
                continue
            latest = template.versions.order_by("-number").values_list("pk", flat=True).first()
            version = save_version(
                template, prompt.text, style=prompt.style, note=prompt.note, by=by
            )
        except ValidationError as error:  # what the files could not tell (a race, a rule)
            raise PromptFilesRefused(
                [
                    Problem(prompt.file, prompt.text_line, None, message)
                    for message in error.messages
                ]
            ) from None
        done.append(Imported(prompt.file, version, made=version.pk != latest))
    return done
