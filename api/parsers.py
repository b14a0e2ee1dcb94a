"""Request bodies: JSON read by the same rules as imported JSON Lines (core.formats.jsonl),
so a hostile body (nested past what the reader follows, a number of thousands of digits) is a 400
that says what is wrong and where, never a 500."""

import codecs
from typing import Any

from django.conf import settings
from rest_framework import exceptions, parsers

from core.formats.jsonl import JsonRefused, loads


class JSONParser(parsers.JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            return loads(codecs.getreader(encoding)(stream).read())
        except JsonRefused as error:
            if error.path:
                field = ".".join(str(key) for key in error.path)
                raise exceptions.ValidationError({field: [str(error)]}) from None
            raise exceptions.ParseError(f"JSON parse error - {error}") from None
        except ValueError as error:  # not JSON at all, or not in the declared encoding
            raise exceptions.ParseError(f"JSON parse error - {error}") from None
