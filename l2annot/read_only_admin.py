"""Admin pages that only show: rows the application's services write (and keep the history
of) are looked at in the Django admin, never added, changed or deleted there."""

from typing import Any


class ReadOnly:
    """Mixed into a `ModelAdmin` or an inline, before it."""

    def has_add_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: Any, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: Any, obj: Any = None) -> bool:
        return False
