"""Hidden tiles never reach a page: the scanner (tests/support/leaks.py, which the tests run in
small), with the one leak rule of tests/support/webkit.py.

    .venv/bin/python -m bench.leaks [--rounds 1000] [--seed 2026] [--seats 2|3|4|mix] [--counter]
"""

from tests.support.leaks import main

if __name__ == "__main__":
    main()
