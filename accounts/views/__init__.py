"""The account pages: the start page (home) and a person's profile with their API tokens
(profile)."""
