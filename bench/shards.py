"""nginx's caps on slow bodies, a cluster process by process (tests/support/shards.py, whose
cluster the tests share).

    .venv/bin/python -m bench.shards
"""

from tests.support.shards import main

if __name__ == "__main__":
    main()
