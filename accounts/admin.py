from django.contrib import admin

from accounts.models import ApiToken, RecoveryCode, SecondFactor, SignOnIdentity

# User is registered by people/admin.py: its role and access change through people.services.


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin[ApiToken]):
    list_display = ["name", "user", "hint", "created", "last_used", "revoked"]
    list_filter = ["revoked"]
    search_fields = ["name", "user__username"]
    readonly_fields = ["hint", "created", "last_used", "revoked"]

    def has_add_permission(self, request: object) -> bool:
        return False  # keys are issued on the profile page, where the key is shown once


@admin.register(SignOnIdentity)
class SignOnIdentityAdmin(admin.ModelAdmin[SignOnIdentity]):
    """Who signs on as whom: deleting a row lets that identity sign on as a new account."""

    list_display = ["user", "issuer", "subject", "created"]
    search_fields = ["user__username", "subject"]
    readonly_fields = ["user", "issuer", "subject", "created"]

    def has_add_permission(self, request: object) -> bool:
        return False  # made at a person's first sign-on


@admin.register(SecondFactor)
class SecondFactorAdmin(admin.ModelAdmin[SecondFactor]):
    """Deleting a person's second factor lets them log in with their password alone (one who
    lost their phone and recovery codes), and set up a new one."""

    list_display = ["user", "confirmed"]
    search_fields = ["user__username"]
    fields = ["user", "confirmed"]
    readonly_fields = ["user", "confirmed"]

    def has_add_permission(self, request: object) -> bool:
        return False  # set up by the person, from their profile


@admin.register(RecoveryCode)
class RecoveryCodeAdmin(admin.ModelAdmin[RecoveryCode]):
    list_display = ["factor", "used"]
    fields = ["factor", "used"]
    readonly_fields = ["factor", "used"]

    def has_add_permission(self, request: object) -> bool:
        return False
