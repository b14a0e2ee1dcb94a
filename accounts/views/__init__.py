"""The account pages: a person's profile with their API tokens (profile) and password reset."""
