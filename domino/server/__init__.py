"""The server's process: the gunicorn worker (`worker.py`) and the gevent helpers (`green.py`)."""
