"""Start the provider: a fresh database with its people and one client (l2annot, whose
callback is the test client's), then serve on the port given, until terminated.

    python -m tests.oidc_provider.serve PORT DATABASE REDIRECT_URI
"""

import os
import sys
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

port, database, redirect_uri = int(sys.argv[1]), sys.argv[2], sys.argv[3]
os.environ.update(
    DJANGO_SETTINGS_MODULE="tests.oidc_provider.settings",
    OIDC_PROVIDER_DB=database,
    OIDC_PROVIDER_URL=f"http://127.0.0.1:{port}",
)

import django  # noqa: E402

django.setup()

from django.contrib.auth.models import User  # noqa: E402
from django.core.handlers.wsgi import WSGIHandler  # noqa: E402
from django.core.management import call_command  # noqa: E402
from oidc_provider.models import Client, ResponseType  # noqa: E402

from tests.oidc_provider.people import CLIENT_ID, CLIENT_SECRET, PASSWORD, PEOPLE  # noqa: E402

call_command("migrate", verbosity=0)
call_command("creatersakey", stdout=open(os.devnull, "w"))  # noqa: SIM115
for username in PEOPLE:
    User.objects.create_user(username, password=PASSWORD)
client = Client.objects.create(
    name="L2 Annot",
    client_id=CLIENT_ID,
    client_secret=CLIENT_SECRET,
    client_type="confidential",
    jwt_alg="RS256",
    require_consent=True,
    reuse_consent=False,  # each login asks, so a test can decline
    redirect_uris=[redirect_uri],
    scope=["openid", "email", "profile"],
)
client.response_types.set([ResponseType.objects.get(value="code")])


class Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


make_server("127.0.0.1", port, WSGIHandler(), Server, QuietHandler).serve_forever()
