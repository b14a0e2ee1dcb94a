"""Whether the last invitation email of an account could not be sent (people.services)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0007_username_key"),
    ]

    operations = [
        migrations.AddField(
            model_name="user",
            name="invitation_unsent",
            field=models.BooleanField(
                default=False,
                editable=False,
                help_text=(
                    "The last email with a set-password link could not be sent (the mail server "
                    "refused it or did not answer): send it again once mail works."
                ),
                verbose_name="invitation not sent",
            ),
        ),
    ]
