"""Security checks and rate limits, around every request."""
