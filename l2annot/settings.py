"""L2 Annot settings: one file, read from the environment, safe defaults for development.

Production sets DEBUG=0, SECRET_KEY, ALLOWED_HOSTS and DATABASE_URL (PostgreSQL).
"""

import os
import sys
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import dj_database_url
import django_stubs_ext
from django.utils.csp import CSP

# Django's generic classes (ModelAdmin[Task], ModelForm[Study], QuerySet[Grade]) take their model
# at runtime as the type checker reads them. django-stubs-ext (also required by django-tasks-db,
# which patches the same classes when it is imported) is a dependency of its own: this does not
# depend on that order.
django_stubs_ext.monkeypatch()

BASE_DIR = Path(__file__).resolve().parent.parent


def envbool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None:
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def envlist(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


DEBUG = envbool("DEBUG", False)
TESTING = "pytest" in sys.modules or sys.argv[1:2] == ["test"]
# Management commands and tests may run on the development key; the WSGI/ASGI entry points refuse
# to serve with it unless DEBUG is on, and `check --deploy` flags it (its prefix says insecure).
SECRET_KEY = os.environ.get("SECRET_KEY") or "django-insecure-l2annot-development-key-only"
SECRET_KEY_FROM_ENVIRONMENT = bool(os.environ.get("SECRET_KEY"))
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", "127.0.0.1,localhost" if DEBUG else "")
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI served from our own static files, no CDN
    "accounts",
    "jobs",  # the one record of background work and whether its worker is alive
    "audit",
    "taxonomy",
    "rubrics",
    "grading",
    "people",  # admins invite people and set their role, expertise and access
    "webhooks",  # URLs told of events, signed deliveries sent by the worker
    "agreement",
    "interchange",
    "judging",  # the LLM judge: prompts, runs, verdicts, calibration, triage
    "django_tasks_db",
    "api",
    "demo",  # `manage.py seed_demo` and the demo data it loads
    "home",  # the start page of each role
    "axes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # static files, before everything else
    # gzip for every other response (after whitenoise, which serves its own .gz files).
    "l2annot.compression.CompressionMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # After authentication: a person's chosen interface language, else the browser's.
    "accounts.middleware.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # An admin or maintainer who must have a second factor sets it up before anything else.
    "accounts.middleware.SecondFactorRequiredMiddleware",
    "l2annot.errors.DomainErrorMiddleware",  # a refusal no view caught: 404 or 409 page
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "l2annot.urls"
WSGI_APPLICATION = "l2annot.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "accounts.context_processors.permissions",
            ],
        },
    }
]

DATABASES = {
    "default": dj_database_url.parse(
        os.environ.get("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    # The development server, its threads and the background worker write to one file. SQLite's
    # default (a deferred transaction upgraded to a write lock halfway, no wait) answers a
    # concurrent write "database is locked" at once. IMMEDIATE takes the write lock when a
    # transaction begins, so a writer waits its turn (up to `timeout` seconds); WAL lets readers
    # go on while one writes.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": int(os.environ.get("SQLITE_BUSY_TIMEOUT", "20")),
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        **DATABASES["default"].get("OPTIONS", {}),
    }
# A read replica for the heavy report reads (agreement/data.py loaders through
# l2annot.db_routers.reports_alias; docs/deploy.md "Read replica for reports"). Nothing is ever
# written or migrated there. The tests get the alias as a mirror of the test database, used only
# by the tests that ask for it (they set REPORTS_DATABASE = "reports").
REPORTS_DATABASE_URL = os.environ.get("REPORTS_DATABASE_URL", "")
if REPORTS_DATABASE_URL or TESTING:
    DATABASES["reports"] = {
        **(
            dj_database_url.parse(
                REPORTS_DATABASE_URL,
                conn_max_age=int(os.environ.get("CONN_MAX_AGE", "60")),
                conn_health_checks=True,
            )
            if REPORTS_DATABASE_URL
            else DATABASES["default"]
        ),
        "TEST": {"MIRROR": "default"},
    }
    DATABASE_ROUTERS = ["l2annot.db_routers.ReportsReplicaRouter"]
REPORTS_DATABASE = "reports" if REPORTS_DATABASE_URL else "default"
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# Background jobs (imports): django-tasks-db stores them in the database and `manage.py db_worker`
# runs them; TASKS_BACKEND=django.tasks.backends.immediate.ImmediateBackend runs them in-process.
TASKS = {"default": {"BACKEND": os.environ.get("TASKS_BACKEND", "django_tasks_db.DatabaseBackend")}}
# Functions the worker calls when it starts rather than at its first job (jobs' management
# command `db_worker`): the judge's loads Inspect AI, which a queued run would wait for, and
# starts the process a large run's children fork from.
WORKER_STARTUP = ["judging.running.prepare"]
AUTH_USER_MODEL = "accounts.User"

# Shared by web workers and the background worker (computed reports), so a database table:
# `manage.py createcachetable` makes it (the Makefile runs it after migrate).
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.db.DatabaseCache",
        "LOCATION": "l2annot_cache",
    }
}
# Studies with more submitted grades than this get their agreement report from the worker.
AGREEMENT_INLINE_LIMIT = int(os.environ.get("AGREEMENT_INLINE_LIMIT", "20000"))

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
# Login lockout (django-axes): AxesStandaloneBackend refuses a locked-out username+IP before the
# password is checked; ModelBackend does the real work. API tokens never go through authenticate(),
# and the test client's force_login skips backends, so only password logins count.
# The sign-on backend (accounts.sso) answers only the OpenID Connect callback, and only when
# OIDC_ISSUER is set; it goes after axes too, so a locked-out address is refused there as well.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
    "accounts.sso.SignOnBackend",
]
AXES_FAILURE_LIMIT = int(os.environ.get("AXES_FAILURE_LIMIT", "5"))
AXES_COOLOFF_TIME = timedelta(minutes=int(os.environ.get("AXES_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]  # one person's typos lock no one else out
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_TEMPLATE = "registration/locked_out.html"
AXES_CLIENT_IP_CALLABLE = "accounts.lockout.client_ip"
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Single sign-on with OpenID Connect (accounts.sso, mozilla-django-oidc; docs/deploy.md), beside
# the local accounts; off while OIDC_ISSUER is empty. The provider's endpoints are read from its
# discovery document ({issuer}/.well-known/openid-configuration) at the first sign-on.
OIDC_ISSUER = os.environ.get("OIDC_ISSUER", "").rstrip("/")
OIDC_RP_CLIENT_ID = os.environ.get("OIDC_CLIENT_ID", "")
OIDC_RP_CLIENT_SECRET = os.environ.get("OIDC_CLIENT_SECRET", "")
OIDC_RP_SCOPES = os.environ.get("OIDC_SCOPES", "openid email profile")
OIDC_RP_SIGN_ALGO = os.environ.get("OIDC_SIGN_ALGO", "RS256")
# The claim whose value names a role (Admin, Maintainer, Author, Annotator, Viewer; or a list
# holding one): set at every sign-on. Empty: a new person has no role until an admin gives one.
OIDC_ROLE_CLAIM = os.environ.get("OIDC_ROLE_CLAIM", "")
OIDC_PROVIDER_NAME = os.environ.get("OIDC_PROVIDER_NAME", "")  # the login button's words
OIDC_USE_PKCE = True
OIDC_TIMEOUT = int(os.environ.get("OIDC_TIMEOUT", "10"))  # seconds, each call to the provider
OIDC_AUTHENTICATION_CALLBACK_URL = "oidc_authentication_callback"
LOGIN_REDIRECT_URL_FAILURE = "login"

# The second factor (accounts.second_factor): anyone may turn it on from their profile; with
# TWO_FACTOR_REQUIRED, admins and maintainers must, and are sent to set it up before anything else.
TWO_FACTOR_REQUIRED = envbool("TWO_FACTOR_REQUIRED", False)
TWO_FACTOR_ISSUER = os.environ.get("TWO_FACTOR_ISSUER", "L2 Annot")  # the name an app shows

# Email, for password reset links: kept in memory in the tests (django.core.mail.outbox), printed
# to the console in development (DEBUG), sent over SMTP in production, configured from the
# environment (docs/deploy.md).
_MAILER: dict[str, Any]
if TESTING:
    _MAILER = {"BACKEND": "django.core.mail.backends.locmem.EmailBackend"}
elif DEBUG:
    _MAILER = {"BACKEND": "django.core.mail.backends.console.EmailBackend"}
else:
    _MAILER = {
        "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "OPTIONS": {
            "host": os.environ.get("EMAIL_HOST", "localhost"),
            "port": int(os.environ.get("EMAIL_PORT", "25")),
            "username": os.environ.get("EMAIL_HOST_USER", ""),
            "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
            "use_tls": envbool("EMAIL_USE_TLS", False),
            "timeout": 20,  # seconds: a stalled mail server must not hold a web worker for ever
        },
    }
MAILERS = {"default": _MAILER}
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "webmaster@localhost")
# Password reset requests an hour per email address and per client (accounts.views.password_reset).
PASSWORD_RESET_LIMIT_PER_EMAIL = int(os.environ.get("PASSWORD_RESET_LIMIT_PER_EMAIL", "3"))
PASSWORD_RESET_LIMIT_PER_CLIENT = int(os.environ.get("PASSWORD_RESET_LIMIT_PER_CLIENT", "10"))

# Interface languages (docs/development.md, "Translations"): each person chooses one on their
# profile; without a choice the browser's Accept-Language decides. The API and the exports are
# always English and locale-independent. The Spanish catalogue is locale/es/LC_MESSAGES.
LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("es", "Español")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# Pages show dates with the language's short formats (`|date:"SHORT_DATETIME_FORMAT"`);
# English's are set in l2annot/formats/en (day, month name, year).
FORMAT_MODULE_PATH = ["l2annot.formats"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = BASE_DIR / "staticfiles"
# Whitenoise serves static files from the web workers. Production serves the hashed, compressed
# copies `collectstatic` writes (cached for a year); DEBUG and the tests use the plain files from
# the finders, so neither needs collectstatic.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"
        if DEBUG or TESTING
        else "whitenoise.storage.CompressedManifestStaticFilesStorage"
    },
}
MEDIA_URL = "media/"
MEDIA_ROOT = Path(os.environ.get("MEDIA_ROOT", BASE_DIR / "media"))
# Uploaded import files: never served; written by the web, read by the worker (docs/deploy.md).
IMPORTS_ROOT = Path(os.environ.get("IMPORTS_ROOT", BASE_DIR / "var" / "imports"))
# LLM judge runs (judging): the kept Inspect `.eval` logs, Inspect's answer cache (a re-run
# of an interrupted run reads the calls already made from it), and how often Inspect retries a
# failed call (a 429, a timeout) before the call counts as an error. API keys are never set
# here: Inspect reads them from the environment (ANTHROPIC_API_KEY, <SERVICE>_API_KEY, ...).
JUDGE_LOG_DIR = Path(os.environ.get("JUDGE_LOG_DIR", BASE_DIR / "var" / "judge-logs"))
JUDGE_CACHE_DIR = Path(os.environ.get("JUDGE_CACHE_DIR", BASE_DIR / "var" / "inspect-cache"))
JUDGE_MAX_RETRIES = int(os.environ.get("JUDGE_MAX_RETRIES", 6))
# The Inspect providers a judge may call (the first part of its model string; an entry such as
# openai-api/local allows that one OpenAI-compatible service). By default the documented ones:
# providers such as ollama, llama-cpp-python, hf or vllm reach the worker's own machine.
JUDGE_ALLOWED_PROVIDERS = envlist("JUDGE_ALLOWED_PROVIDERS", "openai,anthropic,google,openai-api")
# Seconds one attempt of a judge call may take before it is abandoned (and retried up to
# JUDGE_MAX_RETRIES times), and a whole run before it is stopped: no provider holds the worker.
JUDGE_CALL_TIMEOUT = int(os.environ.get("JUDGE_CALL_TIMEOUT", "300"))
JUDGE_RUN_TIMEOUT = int(os.environ.get("JUDGE_RUN_TIMEOUT", str(24 * 3600)))
# The most a judge run may cost, estimated before it starts (judging.costs), in the currency of
# the model's price (judging.ModelPrice, kept by admins): a run estimated above it is refused
# unless the maintainer confirms it. Empty: no budget. A model without a price is not checked.
_budget = os.environ.get("JUDGE_RUN_BUDGET", "20").strip()
JUDGE_RUN_BUDGET = Decimal(_budget) if _budget else None
# A run sent through its provider's batch API (docs/judge.md): seconds between two checks of
# its pending batches, and how long the calls gathered for a batch wait for more before it is
# sent anyway (the retries of unreadable answers come later, in smaller batches).
JUDGE_BATCH_CHECK_SECONDS = float(os.environ.get("JUDGE_BATCH_CHECK_SECONDS", "60"))
JUDGE_BATCH_SEND_DELAY = float(os.environ.get("JUDGE_BATCH_SEND_DELAY", "15"))
# A judge run's calls are spread over up to JUDGE_PROCESSES processes (an event loop of Inspect
# AI's is CPU-bound on one core at a few hundred calls in flight), one per
# JUDGE_CALLS_PER_PROCESS calls: a small run stays in the worker's process.
JUDGE_PROCESSES = int(os.environ.get("JUDGE_PROCESSES", os.cpu_count() or 1))
JUDGE_CALLS_PER_PROCESS = int(os.environ.get("JUDGE_CALLS_PER_PROCESS", "500"))
# Characters of a judge prompt's text (refused longer when saved; the editor's preview, not
# filled): a slot written many times fills as many copies of the response.
JUDGE_PROMPT_MAX_CHARS = int(os.environ.get("JUDGE_PROMPT_MAX_CHARS", "50000"))
# Characters of a judge's output (a verdict's rationale) stored and shown; the rest is replaced
# by a marker (the whole answer stays in the run's .eval log): one verbose answer must not make
# a page or an API answer of megabytes.
JUDGE_RATIONALE_MAX_CHARS = int(os.environ.get("JUDGE_RATIONALE_MAX_CHARS", "20000"))
# A request body other than uploaded files (an API bulk POST of responses or verdicts) is read
# into memory; Django's 2.5 MB default refuses a batch of a few hundred long responses.
DATA_UPLOAD_MAX_MEMORY_SIZE = int(os.environ.get("DATA_UPLOAD_MAX_MEMORY_SIZE", 32 * 1024 * 1024))
# The longest list an API body may give (ids of responses, annotators...): each item is looked
# up, and each unknown one answered with a message.
API_MAX_LIST_ITEMS = int(os.environ.get("API_MAX_LIST_ITEMS", "20000"))
# Files on the import page are streamed to disk; this caps one upload.
IMPORT_MAX_UPLOAD_BYTES = int(os.environ.get("IMPORT_MAX_UPLOAD_BYTES", 200 * 1024 * 1024))
# A JSON Lines file of responses or verdicts on the import page: the importer holds every line
# until all are checked (measured: 100 MiB take the worker from 67 to 245 MB).
IMPORT_MAX_JSONL_BYTES = int(os.environ.get("IMPORT_MAX_JSONL_BYTES", 100 * 1024 * 1024))
# Bytes a member of an uploaded Inspect .eval log (a ZIP archive) may unpack to: each is read
# whole, and a member of a few kilobytes can unpack to hundreds of megabytes.
IMPORT_MAX_JSON_MEMBER_BYTES = int(os.environ.get("IMPORT_MAX_JSON_MEMBER_BYTES", 24 * 1024 * 1024))
# Characters of responses and explanations one .eval log may yield: all are held until the
# whole log is checked (a thousand samples of a repeated 20 MB explanation fit in megabytes).
IMPORT_MAX_EVAL_TEXT_CHARS = int(os.environ.get("IMPORT_MAX_EVAL_TEXT_CHARS", "32000000"))
# A study backup's document (restore_study): the bytes it may unpack to and the values it may
# hold (a restore of 900,000 values went from 65 to 181 MB). Raise both, with the memory of the
# machine that restores, for a larger study.
BACKUP_MAX_DOCUMENT_BYTES = int(os.environ.get("BACKUP_MAX_DOCUMENT_BYTES", 48 * 1024 * 1024))
BACKUP_MAX_VALUES = int(os.environ.get("BACKUP_MAX_VALUES", "1500000"))
# The licence a study's dataset folder declares in its card (a Hub identifier: cc-by-4.0,
# cc-by-nc-4.0, other...) unless `export_dataset --license` says another; the deployment's data
# owners choose it, so by default the card says it is unknown.
DATASET_LICENSE = os.environ.get("DATASET_LICENSE", "unknown")
# Webhooks (docs/webhooks.md): each attempt of a delivery gives up after WEBHOOK_TIMEOUT seconds;
# a delivery is tried WEBHOOK_MAX_ATTEMPTS times, waiting WEBHOOK_RETRY_SECONDS after the first
# failure and twice as long after each next one (at most an hour). Deliveries go to public
# addresses only: private, loopback and link-local ones (the internal network, this machine, a
# cloud's metadata service) only when WEBHOOK_ALLOW_PRIVATE_ADDRESSES is on.
WEBHOOK_TIMEOUT = float(os.environ.get("WEBHOOK_TIMEOUT", "10"))
WEBHOOK_MAX_ATTEMPTS = int(os.environ.get("WEBHOOK_MAX_ATTEMPTS", "8"))
WEBHOOK_RETRY_SECONDS = float(os.environ.get("WEBHOOK_RETRY_SECONDS", "30"))
WEBHOOK_ALLOW_PRIVATE_ADDRESSES = envbool("WEBHOOK_ALLOW_PRIVATE_ADDRESSES", False)
# A background job (an import, a judge run, an agreement report) whose worker has sent no
# heartbeat for this long (or, on the worker's own machine, whose worker process has ended) is
# taken for abandoned: docs/deploy.md, "The background worker". IMPORT_JOB_LEASE_SECONDS is
# its earlier name, still read.
JOB_LEASE_SECONDS = float(
    os.environ.get("JOB_LEASE_SECONDS", os.environ.get("IMPORT_JOB_LEASE_SECONDS", "60"))
)

# Strict policy: every script is a same-origin file or carries the per-request nonce; htmx's
# injected indicator styles are turned off by the htmx-config meta tag in base.html.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF, CSP.NONCE],  # the grading page inlines its stylesheets
    "img-src": [CSP.SELF, "data:"],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
}
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CONTENT_TYPE_NOSNIFF = True
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # htmx reads no cookie; the token travels in a header from the page.
SESSION_COOKIE_SECURE = not DEBUG and envbool("SECURE_COOKIES", True)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = int(os.environ.get("SECURE_HSTS_SECONDS", "0" if DEBUG else "31536000"))
SECURE_HSTS_INCLUDE_SUBDOMAINS = SECURE_HSTS_SECONDS > 0
# Preloading binds every subdomain of the domain to HTTPS in browsers for months and is undone only
# slowly: the operator opts in (SECURE_HSTS_PRELOAD=1), so until then `check --deploy` is told not
# to warn about it.
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", False)
SILENCED_SYSTEM_CHECKS = [] if SECURE_HSTS_PRELOAD else ["security.W021"]
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https") if envbool("BEHIND_TLS_PROXY", False) else None
)

# The API (docs/api.md). Token first: an anonymous request is answered 401 with a
# WWW-Authenticate header, not 403. Session requests from the browser keep DRF's CSRF check.
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["api.parsers.JSONParser"],
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
    "DEFAULT_PAGINATION_CLASS": "api.pagination.PageNumberPagination",
    "DEFAULT_FILTER_BACKENDS": [
        "api.filters.DjangoFilterBackend",
        "api.filters.SearchFilter",
        "rest_framework.filters.OrderingFilter",
    ],
    "DEFAULT_SCHEMA_CLASS": "api.schema.AutoSchema",
    "EXCEPTION_HANDLER": "api.exceptions.exception_handler",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "L2 Annot API",
    "DESCRIPTION": "Taxonomy, rubrics and grading of the L2-Bench benchmark. See docs/api.md.",
    "VERSION": "1",
    "SCHEMA_PATH_PREFIX": r"/api/v1",
    "COMPONENT_SPLIT_REQUEST": True,
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "api.schema.bound_integers",
    ],
    "ENUM_NAME_OVERRIDES": {
        "ContextVariableKind": "taxonomy.models.ContextVariable.Kind",
        "ResponseKind": "rubrics.models.Response.Kind",
        "TaskStatus": "rubrics.models.Task.Status",
        "StudyStatus": "grading.models.Study.Status",
        "AssignmentStatus": "grading.models.Assignment.Status",
        "FlagKind": "grading.models.Flag.Kind",
        "FlagStatus": "grading.models.Flag.Status",
        "FlagOutcome": "grading.models.Flag.Outcome",
        "PersonRole": "api.people.ROLES",
        "JudgeRunStatus": "api.judging.RUN_STATUSES",
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
