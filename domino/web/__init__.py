"""Web layer: Flask blueprints (and, later, websockets) for the domino table."""
