"""Which address a login attempt came from, for the lockout (django-axes)."""

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str | None:
    """The client's address. Behind our TLS proxy (BEHIND_TLS_PROXY, the same switch that trusts
    its X-Forwarded-Proto) REMOTE_ADDR is the proxy, so take the address the proxy appended last
    to X-Forwarded-For: earlier entries come from the client and can be forged."""
    if settings.SECURE_PROXY_SSL_HEADER:
        forwarded: str = request.META.get("HTTP_X_FORWARDED_FOR", "")
        last = forwarded.rsplit(",", 1)[-1].strip()
        if last:
            return last
    address: str | None = request.META.get("REMOTE_ADDR")
    return address
