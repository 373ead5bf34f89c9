"""Blueprints. A route module imports its helpers (web/seats.py, live/, view/, forms/), never
another route module."""
