"""Views: judge pages (judge.py) and organizer pages (organizer.py)."""
