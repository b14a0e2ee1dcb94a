import os

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "l2annot.settings")
application = get_wsgi_application()

if not settings.DEBUG and not settings.SECRET_KEY_FROM_ENVIRONMENT:
    raise ImproperlyConfigured("Set SECRET_KEY before serving (or DEBUG=1 for local development).")
