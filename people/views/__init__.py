"""The admins' pages for people: the list with the invitation form, and each person's page
(role, expertise, access, invitation, history)."""
