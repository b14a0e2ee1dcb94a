"""The signature of a webhook delivery, as the sender writes it and a receiver checks it.

The header `X-L2Annot-Signature: t=<unix seconds>,v1=<hex>` carries the moment of sending and
the HMAC-SHA256, keyed by the hook's secret, of `<t>.` followed by the request's body as sent
(bytes). A receiver recomputes it over the body it read, compares in constant time and refuses a
`t` older than a few minutes, so a recorded delivery cannot be replayed later. Each attempt is
signed anew: a retry carries its own `t`. Several `v1=` entries may appear (one per secret while
a secret is being replaced); one match is enough.

Pure Python: the receiver's side is the same function (docs/webhooks.md).
"""

import hashlib
import hmac

HEADER = "X-L2Annot-Signature"
TOLERANCE_SECONDS = 300


def signature(secret: str, timestamp: int, body: bytes) -> str:
    """The hex HMAC-SHA256 of `<timestamp>.<body>` keyed by `secret`."""
    message = str(timestamp).encode("ascii") + b"." + body
    return hmac.new(secret.encode("utf-8"), message, hashlib.sha256).hexdigest()


def signature_header(secret: str, timestamp: int, body: bytes) -> str:
    """The value of the signature header for `body` sent at `timestamp` (unix seconds)."""
    return f"t={timestamp},v1={signature(secret, timestamp, body)}"


def verify(
    secret: str, header: str, body: bytes, now: float, tolerance: float = TOLERANCE_SECONDS
) -> bool:
    """Whether `header` signs `body` with `secret` and was made within `tolerance` seconds of
    `now` (either side: clocks differ). A malformed header is False, never an error."""
    timestamp: int | None = None
    signatures: list[str] = []
    for part in header.split(","):
        name, _, value = part.strip().partition("=")
        if name == "t" and value.isdigit():
            timestamp = int(value)
        elif name == "v1" and value:
            signatures.append(value)
    if timestamp is None or not signatures or abs(now - timestamp) > tolerance:
        return False
    expected = signature(secret, timestamp, body)
    return any(hmac.compare_digest(expected, found) for found in signatures)
