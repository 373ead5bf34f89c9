"""Concurrency: the one owner of each room (tables.py), the sockets' hub and outboxes, the
computer and its process pool, and the fair queues in front of the pools."""
