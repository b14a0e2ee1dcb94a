"""Compressed responses for slow links: Django's GZipMiddleware (its random padding of each
compressed body mitigates BREACH), minus the responses that are compressed already.

Static files never reach it: whitenoise answers them first, with the .gz copies collectstatic
made. Workbooks (.xlsx), images and archives are left as they are: they are zip or image
formats, and compressing them again costs the server time for nothing.
"""

from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware

ALREADY_COMPRESSED = (
    "application/vnd.openxmlformats",  # .xlsx, .docx: zip archives
    "application/zip",
    "application/gzip",
    "application/x-zip",
    "image/",
    "audio/",
    "video/",
)


class CompressionMiddleware(GZipMiddleware):
    def process_response(
        self, request: HttpRequest, response: HttpResponseBase
    ) -> HttpResponseBase:
        if response.get("Content-Type", "").startswith(ALREADY_COMPRESSED):
            return response
        return super().process_response(request, response)
