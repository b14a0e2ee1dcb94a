"""The history page of an object (history)."""
