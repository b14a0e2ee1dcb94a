"""Whole members of a ZIP archive, Zstandard-compressed ones included.

Inspect AI 0.3 writes its ``.eval`` logs with Zstandard members (ZIP method 93), which the
standard library's ``zipfile`` reads only from Python 3.14. Such a member's bytes are taken
from the archive as they are stored and inflated here with the ``zstandard`` package (across
frames: Inspect splits large members into several); every other method is left to
``zipfile``. Either way a member yields exactly its declared size, its CRC checked, or a
``MemberError`` in words.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

import zstandard

from core.messages import gettext_noop

__all__ = ["ZSTANDARD", "MemberError", "ZipMembers", "inflate_zstandard"]

ZSTANDARD = 93
_LOCAL_HEADER = struct.Struct("<4sHHHHHIIIHH")
_LOCAL_SIGNATURE = b"PK\x03\x04"
_CHUNK = 1024 * 1024


class MemberError(ValueError):
    """A member that cannot be read, said in words (an unknown method, a corrupt body, ...):
    its argument is a `core.messages.Text`, read in the reader's language."""


class ZipMembers:
    """An open ZIP archive read member by member (``with ZipMembers(path) as archive:``).

    Raises ``zipfile.BadZipFile`` when the file is not a ZIP archive and ``OSError`` when it
    cannot be opened."""

    def __init__(self, path: Path) -> None:
        self._file: BinaryIO = path.open("rb")
        try:
            self._zip = zipfile.ZipFile(self._file)
        except BaseException:
            self._file.close()
            raise

    def __enter__(self) -> ZipMembers:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._zip.close()
        self._file.close()

    def namelist(self) -> list[str]:
        return self._zip.namelist()

    def getinfo(self, name: str) -> zipfile.ZipInfo:
        return self._zip.getinfo(name)

    def read(self, name: str) -> bytes:
        """The uncompressed bytes of member `name`."""
        info = self._zip.getinfo(name)
        if info.flag_bits & 0x1:
            raise MemberError(gettext_noop("is encrypted"))
        if info.compress_type == ZSTANDARD:
            data = inflate_zstandard(self._stored_bytes(info), info.file_size)
            if zlib.crc32(data) != info.CRC:
                raise MemberError(gettext_noop("is corrupt (its checksum does not match)"))
            return data
        try:
            return self._zip.read(info)
        except NotImplementedError:
            raise MemberError(
                gettext_noop(
                    "is compressed with a method this reader does not know (%(method)s)",
                    method=info.compress_type,
                )
            ) from None
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as error:
            raise MemberError(gettext_noop("is corrupt (%(detail)s)", detail=str(error))) from None

    def _stored_bytes(self, info: zipfile.ZipInfo) -> bytes:
        """The member's bytes as stored: after its local header (whose name and extra field
        lengths may differ from the central directory's), `compress_size` of them."""
        self._file.seek(info.header_offset)
        header = self._file.read(_LOCAL_HEADER.size)
        if len(header) != _LOCAL_HEADER.size or header[:4] != _LOCAL_SIGNATURE:
            raise MemberError(
                gettext_noop("is corrupt (no local header where the directory points)")
            )
        fields = _LOCAL_HEADER.unpack(header)
        name_length, extra_length = fields[-2], fields[-1]
        self._file.seek(info.header_offset + _LOCAL_HEADER.size + name_length + extra_length)
        stored = self._file.read(info.compress_size)
        if len(stored) != info.compress_size:
            raise MemberError(gettext_noop("is corrupt (the archive ends inside it)"))
        return stored


def inflate_zstandard(stored: bytes, size: int) -> bytes:
    """Decompress every frame of `stored`, refusing output beyond the declared `size`."""
    reader = zstandard.ZstdDecompressor().stream_reader(stored, read_across_frames=True)
    chunks: list[bytes] = []
    total = 0
    try:
        with reader:
            while chunk := reader.read(min(_CHUNK, size + 1 - total)):
                chunks.append(chunk)
                total += len(chunk)
                if total > size:
                    raise MemberError(
                        gettext_noop(
                            "inflates beyond its declared size (%(size)s bytes)", size=size
                        )
                    )
    except zstandard.ZstdError as error:
        raise MemberError(
            gettext_noop("is corrupt (Zstandard: %(detail)s)", detail=str(error))
        ) from None
    if total != size:
        raise MemberError(
            gettext_noop(
                "inflates to %(total)s bytes, not its declared %(size)s", total=total, size=size
            )
        )
    return b"".join(chunks)
