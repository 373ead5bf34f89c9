"""Domino online: the rules core (tiles, events, `apply`, views) and the layers around it."""
