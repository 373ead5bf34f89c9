"""Concurrency: the one owner of each room (tables.py) and its away timers (away.py), the
sockets' hub, outboxes and pinger, the computer, and the process pools with the fair queues in
front of them (pools.py)."""
