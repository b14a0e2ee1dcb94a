"""Sending one attempt of a delivery: only to http(s) URLs, only to public addresses unless the
deployment allows others (settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES), waiting at most
settings.WEBHOOK_TIMEOUT seconds to connect and for each read or write, signed with the hook's
secret.

The address is checked where the connection is made: the host is resolved once, every address
it resolves to is checked, and the connection goes to the checked address (TLS still names the
host). So a name that resolves to a public address when the hook is saved and to an internal one
later (DNS rebinding) is refused too, and a redirect is never followed (its answer is logged)."""

from __future__ import annotations

import ipaddress
import socket
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpcore
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext

from core.webhook_signature import HEADER, signature_header

SCHEMES = ("http", "https")
BODY_EXCERPT = 1000
USER_AGENT = "L2Annot-Webhooks/1"

type Address = ipaddress.IPv4Address | ipaddress.IPv6Address


class AddressNotAllowed(OSError):
    """The host resolves to an address this deployment may not call."""


def private_allowed() -> bool:
    return bool(settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES)


def is_public(address: Address) -> bool:
    """A global unicast address: not private, loopback, link-local (cloud metadata sits at
    169.254.169.254), shared, reserved, unspecified or multicast."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_global and not address.is_multicast


def check_url(url: str) -> None:
    """Refuse a URL that is not http(s) with a host, or whose host is an address literal this
    deployment may not call (a name is checked when it is resolved, at each attempt)."""
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES or not parts.hostname:
        raise ValidationError(
            {"url": gettext("A webhook URL starts with http:// or https:// and names a host.")}
        )
    if parts.username or parts.password:
        raise ValidationError(
            {"url": gettext("A webhook URL holds no user name or password: deliveries are signed.")}
        )
    try:
        literal = ipaddress.ip_address(parts.hostname)
    except ValueError:
        return
    if not private_allowed() and not is_public(literal):
        raise ValidationError(
            {
                "url": gettext(
                    "%(address)s is a private, loopback or link-local address, which this server "
                    "does not call (WEBHOOK_ALLOW_PRIVATE_ADDRESSES)."
                )
                % {"address": parts.hostname}
            }
        )


def allowed_addresses(host: str, port: int) -> list[str]:
    """The addresses `host` resolves to, all of them allowed, or AddressNotAllowed."""
    found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    addresses = list(dict.fromkeys(str(entry[4][0]) for entry in found))
    if not private_allowed():
        refused = [a for a in addresses if not is_public(ipaddress.ip_address(a.split("%")[0]))]
        if refused:
            raise AddressNotAllowed(f"{host} resolves to {', '.join(refused)}")
    return addresses


class CheckedBackend(httpcore.SyncBackend):
    """httpcore's own sockets, connected only to an address `allowed_addresses` let through."""

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        last: Exception | None = None
        for address in allowed_addresses(host, port):
            try:
                return super().connect_tcp(address, port, timeout, local_address, socket_options)
            except httpcore.ConnectError as error:
                last = error
        raise last or httpcore.ConnectError(f"{host} has no address")


@dataclass(frozen=True)
class Outcome:
    """What one attempt got: a status and the start of the body, or the kind of failure
    (webhooks.models.NoAnswer) and its detail."""

    seconds: float
    status: int | None = None
    body: str = ""
    error: str = ""
    detail: str = ""


def post(url: str, body: bytes, secret: str, headers: dict[str, str]) -> Outcome:
    """POST `body` (JSON) to `url`, signed with `secret` at this moment."""
    timeout = float(settings.WEBHOOK_TIMEOUT)
    sent = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        HEADER: signature_header(secret, int(time.time()), body),
        **headers,
    }
    limits = dict.fromkeys(("connect", "read", "write", "pool"), timeout)
    start = time.monotonic()
    try:
        check_url(url)
        with (
            httpcore.ConnectionPool(network_backend=CheckedBackend()) as pool,
            pool.stream(
                "POST",
                url,
                headers=list(sent.items()),
                content=body,
                extensions={"timeout": limits},
            ) as answer,
        ):
            # Only the start of the body is kept: a receiver cannot fill the worker's memory.
            start_of_body = b""
            for chunk in answer.iter_stream():
                start_of_body += chunk
                if len(start_of_body) >= BODY_EXCERPT * 4:
                    break
    except (AddressNotAllowed, ValidationError) as error:
        return Outcome(time.monotonic() - start, error="not_allowed", detail=_detail(error))
    except httpcore.TimeoutException as error:
        return Outcome(time.monotonic() - start, error="timeout", detail=_detail(error))
    except (httpcore.ConnectError, OSError) as error:
        return Outcome(time.monotonic() - start, error="refused", detail=_detail(error))
    except httpcore.ProtocolError as error:
        return Outcome(time.monotonic() - start, error="error", detail=_detail(error))
    text = start_of_body[: BODY_EXCERPT * 4].decode("utf-8", "replace")[:BODY_EXCERPT]
    return Outcome(time.monotonic() - start, status=answer.status, body=text)


def _detail(error: BaseException) -> str:
    if isinstance(error, ValidationError):
        return " ".join(error.messages)[:300]
    return (f"{type(error).__name__}: {error}")[:300]
