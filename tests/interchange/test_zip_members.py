"""Reading ZIP members whole: deflate and stored through zipfile, Zstandard (method 93) here,
and every way a member can be unreadable said in words."""

import struct
import zipfile
import zlib

import pytest
import zstandard

from core.formats.zip_members import ZSTANDARD, MemberError, ZipMembers, inflate_zstandard


def hand_made_zip(path, members):
    """A ZIP archive written byte by byte, so a test chooses each member's method, stored bytes,
    declared size and CRC: `members` is [(name, method, stored, size, crc)]."""
    body, directory = bytearray(), bytearray()
    for name, method, stored, size, crc in members:
        offset, encoded = len(body), name.encode()
        body += struct.pack(
            "<4s5H3I2H", b"PK\x03\x04", 20, 0, method, 0, 0, crc, len(stored), size, len(encoded), 0
        )
        body += encoded + stored
        directory += struct.pack(
            "<4s6H3I5H2I", b"PK\x01\x02", 20, 20, 0, method, 0, 0, crc, len(stored), size,
            len(encoded), 0, 0, 0, 0, 0, offset,
        )  # fmt: skip
        directory += encoded
    end = struct.pack(
        "<4s4H2IH", b"PK\x05\x06", 0, 0, len(members), len(members), len(directory), len(body), 0
    )
    path.write_bytes(bytes(body + directory + end))
    return path


def zstd_member(name, data, frames=1, size=None, crc=None):
    step = -(-len(data) // frames) or 1
    parts = [data[i : i + step] for i in range(0, len(data), step)] or [b""]
    stored = b"".join(zstandard.ZstdCompressor().compress(p) for p in parts)
    declared = len(data) if size is None else size
    return (name, ZSTANDARD, stored, declared, zlib.crc32(data) if crc is None else crc)


def read(path, name):
    with ZipMembers(path) as archive:
        return archive.read(name)


@pytest.mark.parametrize("method", [zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED])
def test_stored_and_deflate_members_are_read_through_zipfile(tmp_path, method):
    path = tmp_path / "old.eval"
    with zipfile.ZipFile(path, "w", compression=method) as archive:
        archive.writestr("header.json", '{"version": 2}' * 50)
    assert zipfile.ZipFile(path).getinfo("header.json").compress_type == method
    assert read(path, "header.json") == b'{"version": 2}' * 50


def test_a_zstandard_member_is_read(tmp_path):
    data = b'{"eval": {"model": "m"}}' * 100
    path = hand_made_zip(tmp_path / "new.eval", [zstd_member("header.json", data)])
    assert read(path, "header.json") == data


def test_a_zstandard_member_split_into_frames_is_read_whole(tmp_path):
    data = bytes(range(256)) * 40
    path = hand_made_zip(tmp_path / "new.eval", [zstd_member("samples/1.json", data, frames=3)])
    assert read(path, "samples/1.json") == data


def test_a_zstandard_member_with_a_wrong_checksum_is_corrupt(tmp_path):
    path = hand_made_zip(tmp_path / "x.eval", [zstd_member("a.json", b"{}", crc=12345)])
    with pytest.raises(MemberError, match="checksum does not match"):
        read(path, "a.json")


def test_a_zstandard_member_larger_than_declared_is_refused(tmp_path):
    member = zstd_member("a.json", b"x" * 5000, size=100)
    path = hand_made_zip(tmp_path / "x.eval", [member])
    with pytest.raises(MemberError, match=r"beyond its declared size \(100 bytes\)"):
        read(path, "a.json")


def test_a_zstandard_member_smaller_than_declared_is_refused(tmp_path):
    path = hand_made_zip(tmp_path / "x.eval", [zstd_member("a.json", b"{}", size=10)])
    with pytest.raises(MemberError, match="inflates to 2 bytes, not its declared 10"):
        read(path, "a.json")


def test_a_zstandard_member_that_is_not_zstandard_is_corrupt(tmp_path):
    member = ("a.json", ZSTANDARD, b"not a zstd frame", 2, zlib.crc32(b"{}"))
    path = hand_made_zip(tmp_path / "x.eval", [member])
    with pytest.raises(MemberError, match=r"is corrupt \(Zstandard: "):
        read(path, "a.json")


def test_a_member_compressed_with_an_unknown_method_is_named(tmp_path):
    path = hand_made_zip(tmp_path / "x.eval", [("a.json", 99, b"{}", 2, zlib.crc32(b"{}"))])
    with pytest.raises(MemberError, match=r"a method this reader does not know \(99\)"):
        read(path, "a.json")


def test_a_corrupt_deflate_member_is_named(tmp_path):
    member = ("a.json", zipfile.ZIP_DEFLATED, b"\xff\xff\xff\xff", 2, zlib.crc32(b"{}"))
    path = hand_made_zip(tmp_path / "x.eval", [member])
    with pytest.raises(MemberError, match="is corrupt"):
        read(path, "a.json")


def test_an_archive_cut_short_inside_a_zstandard_member_is_named(tmp_path):
    path = hand_made_zip(tmp_path / "x.eval", [zstd_member("a.json", b"{}" * 100)])
    with ZipMembers(path) as archive:
        archive.getinfo("a.json").compress_size += 10_000
        with pytest.raises(MemberError, match="the archive ends inside it"):
            archive.read("a.json")


def test_inflating_reads_every_frame_and_stops_at_the_declared_size():
    frames = zstandard.ZstdCompressor().compress(b"ab") + zstandard.ZstdCompressor().compress(b"c")
    assert inflate_zstandard(frames, 3) == b"abc"
    with pytest.raises(MemberError, match="beyond its declared size"):
        inflate_zstandard(frames, 2)
