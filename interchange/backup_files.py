"""The archive a study backup travels in: one zip holding the rows (`study.json`) and the task
resource files they name (`media/<path under MEDIA_ROOT>`), each listed with its SHA-256.

Restoring writes files only under MEDIA_ROOT: a path that is absolute, climbs out with `..`, or
resolves outside MEDIA_ROOT (a symlink) is refused before anything is written. A file already
there under the same name is accepted when its bytes are the same and refused otherwise, so a
restore never overwrites someone's file.
"""

import contextlib
import hashlib
import os
import shutil
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Any

from django.conf import settings
from django.utils.translation import gettext

DOCUMENT_MEMBER = "study.json"
MEDIA_PREFIX = "media/"
CHUNK = 1 << 20


class BackupError(Exception):
    """A backup that cannot be read or a database (or MEDIA_ROOT) that cannot take it."""


@dataclass(frozen=True)
class MediaFile:
    path: str  # relative to MEDIA_ROOT, '/'-separated, as stored in the FileField
    sha256: str
    size: int

    def as_record(self) -> dict[str, Any]:
        return {"path": self.path, "sha256": self.sha256, "size": self.size}


def checked_path(name: str) -> str:
    """`name` if it is a plain relative path; a BackupError naming it otherwise."""
    path = PurePosixPath(name)
    if (
        not name
        or "\\" in name
        or "\x00" in name
        or path.is_absolute()
        or ".." in path.parts
        or (path.parts and ":" in path.parts[0])  # a Windows drive, "C:"
    ):
        raise BackupError(gettext("Unsafe file path in the backup: %(name)r.") % {"name": name})
    return name


def target_path(media_root: Path, name: str) -> Path:
    """Where the file `name` goes: inside `media_root`, even after resolving symlinks."""
    root = media_root.resolve()
    target = (root / checked_path(name)).resolve()
    if not target.is_relative_to(root) or target == root:
        raise BackupError(
            gettext("Unsafe file path in the backup: %(name)r leaves MEDIA_ROOT.") % {"name": name}
        )
    return target


def _digest(handle: IO[bytes]) -> tuple[str, int]:
    sha, size = hashlib.sha256(), 0
    while chunk := handle.read(CHUNK):
        sha.update(chunk)
        size += len(chunk)
    return sha.hexdigest(), size


def write_archive(
    out: IO[bytes], document_json: str, names: Iterable[str], media_root: Path
) -> None:
    """Write the zip: the files first, then the document (which lists them with checksums)."""
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name in names:
            with (
                (media_root / name).open("rb") as source,
                archive.open(MEDIA_PREFIX + name, "w", force_zip64=True) as member,
            ):
                shutil.copyfileobj(source, member, CHUNK)
        archive.writestr(DOCUMENT_MEMBER, document_json)


def media_files(names: Iterable[str], media_root: Path) -> tuple[list[MediaFile], list[str]]:
    """The files under `media_root` with their checksums, and the names that are missing."""
    found, missing = [], []
    for name in sorted(set(names)):
        try:
            with (media_root / name).open("rb") as handle:
                found.append(MediaFile(name, *_digest(handle)))
        except FileNotFoundError:
            missing.append(name)
    return found, missing


def read_document_member(archive: zipfile.ZipFile) -> bytes:
    for info in archive.infolist():
        checked_path(info.filename)
    try:
        info = archive.getinfo(DOCUMENT_MEMBER)
    except KeyError:
        raise BackupError(
            gettext("Not a study backup (no %(member)s in the archive).")
            % {"member": DOCUMENT_MEMBER}
        ) from None
    check_document_size(info.file_size)  # zipfile never unpacks more than the size it says
    return archive.read(info)


def check_document_size(size: int) -> None:
    """Refuse a document larger than settings.BACKUP_MAX_DOCUMENT_BYTES before it is read: a
    few hundred kilobytes of archive can unpack to a document that takes gigabytes to read."""
    most = settings.BACKUP_MAX_DOCUMENT_BYTES
    if size > most:
        raise BackupError(
            gettext(
                "The backup's document is %(size)s bytes, more than the %(most)s this server "
                "restores (BACKUP_MAX_DOCUMENT_BYTES): nothing was restored."
            )
            % {"size": f"{size:,}", "most": f"{most:,}"}
        )


def verified_files(archive: zipfile.ZipFile, records: list[dict[str, Any]]) -> list[MediaFile]:
    """The listed files, each checked against its archive member's size and SHA-256."""
    files = []
    for record in records:
        try:
            listed = MediaFile(checked_path(str(record["path"])), record["sha256"], record["size"])
        except (KeyError, TypeError):
            raise BackupError(
                gettext("The backup's file list is malformed: %(record)r.") % {"record": record}
            ) from None
        try:
            info = archive.getinfo(MEDIA_PREFIX + listed.path)
        except KeyError:
            raise BackupError(
                gettext("The backup lists %(path)s but does not hold it.") % {"path": listed.path}
            ) from None
        if info.file_size != listed.size:
            raise BackupError(
                gettext("%(path)s in the backup is damaged (size differs).") % {"path": listed.path}
            )
        with archive.open(info) as member:
            if _digest(member) != (listed.sha256, listed.size):
                raise BackupError(
                    gettext("%(path)s in the backup is damaged (checksum differs).")
                    % {"path": listed.path}
                )
        files.append(listed)
    return files


def files_to_write(files: list[MediaFile], media_root: Path) -> list[MediaFile]:
    """The files not yet in `media_root`; a BackupError naming the first one that is there with
    other bytes."""
    pending = []
    for listed in files:
        target = target_path(media_root, listed.path)
        if not target.exists():
            pending.append(listed)
            continue
        with target.open("rb") as handle:
            if _digest(handle) != (listed.sha256, listed.size):
                raise BackupError(
                    gettext(
                        "MEDIA_ROOT already holds a different file %(path)s: move it away, or "
                        "restore into an empty MEDIA_ROOT. Nothing was restored."
                    )
                    % {"path": listed.path}
                )
    return pending


class FileWriter:
    """Writes archive members under MEDIA_ROOT and can take back everything it wrote."""

    def __init__(self, archive: zipfile.ZipFile, media_root: Path) -> None:
        self.archive = archive
        self.media_root = media_root
        self.written: list[Path] = []
        self.made_dirs: list[Path] = []

    def write(self, listed: MediaFile) -> None:
        target = target_path(self.media_root, listed.path)
        missing = [p for p in (target.parent, *target.parent.parents) if not p.exists()]
        target.parent.mkdir(parents=True, exist_ok=True)
        self.made_dirs.extend(missing)  # deepest first, the order to remove them in
        try:
            out = target.open("xb")  # never replace a file that appeared since the check
        except FileExistsError:
            raise BackupError(
                gettext("MEDIA_ROOT already holds a file %(path)s.") % {"path": listed.path}
            ) from None
        self.written.append(target)
        with out, self.archive.open(MEDIA_PREFIX + listed.path) as member:
            shutil.copyfileobj(member, out, CHUNK)

    def undo(self) -> None:
        for path in self.written:
            path.unlink(missing_ok=True)
        for directory in sorted(self.made_dirs, key=lambda p: len(p.parts), reverse=True):
            with contextlib.suppress(OSError):  # not empty: someone else's files are there
                os.rmdir(directory)
