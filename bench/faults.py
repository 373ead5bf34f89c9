"""SIGKILL mid-game: the bench (tests/support/faults.py, whose server and seats the tests share).

.venv/bin/python -m bench.faults --kills 200 --rooms 4 --seed 1 [--sync-delay-ms 20]
"""

import sys

from tests.support.faults import main

if __name__ == "__main__":
    sys.exit(main())
