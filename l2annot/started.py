"""When this process started: the Last-Modified of responses that change only with a deploy."""

from datetime import UTC, datetime

AT = datetime.now(UTC)
