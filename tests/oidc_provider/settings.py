"""A second, tiny Django project: an OpenID provider (django-oidc-provider) that the sign-on
tests log in through, run in its own process (tests/oidc_provider/serve.py)."""

import os
from pathlib import Path

HERE = Path(__file__).resolve().parent

SECRET_KEY = "an-openid-provider-for-the-tests-only"
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1"]
INSTALLED_APPS = [
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "oidc_provider",
]
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
]
ROOT_URLCONF = "tests.oidc_provider.urls"
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [HERE / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {"context_processors": ["django.template.context_processors.request"]},
    }
]
DATABASES = {
    "default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ["OIDC_PROVIDER_DB"]}
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast, for tests only
USE_TZ = True
STATIC_URL = "static/"
LOGIN_URL = "/login/"

SITE_URL = os.environ["OIDC_PROVIDER_URL"]  # the issuer is SITE_URL + "/openid"
OIDC_USERINFO = "tests.oidc_provider.people.userinfo"
OIDC_IDTOKEN_PROCESSING_HOOK = "tests.oidc_provider.people.id_token"
