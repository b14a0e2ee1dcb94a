"""The delivery signature, as a receiver checks it (core.webhook_signature): pure."""

from core.webhook_signature import signature, signature_header, verify

SECRET = "s3cret"
BODY = b'{"event":"study.closed"}'


def test_a_signed_body_verifies_within_the_tolerance():
    header = signature_header(SECRET, 1_800_000_000, BODY)
    assert verify(SECRET, header, BODY, now=1_800_000_100)


def test_a_changed_body_another_secret_or_an_old_timestamp_do_not_verify():
    header = signature_header(SECRET, 1_800_000_000, BODY)
    assert not verify(SECRET, header, BODY + b" ", now=1_800_000_000)
    assert not verify("other", header, BODY, now=1_800_000_000)
    assert not verify(SECRET, header, BODY, now=1_800_000_000 + 301)  # a replay, later


def test_the_signature_is_hmac_sha256_of_timestamp_dot_body():
    import hashlib
    import hmac

    expected = hmac.new(b"s3cret", b"1800000000." + BODY, hashlib.sha256).hexdigest()
    assert signature(SECRET, 1_800_000_000, BODY) == expected
    assert signature_header(SECRET, 1_800_000_000, BODY) == f"t=1800000000,v1={expected}"


def test_a_malformed_header_is_refused_without_an_error():
    for header in ("", "t=abc,v1=00", "v1=00", "t=1800000000", "garbage"):
        assert not verify(SECRET, header, BODY, now=1_800_000_000)
