"""``python -m memlode``: the same entry point as the ``memlode`` console script."""

from memlode.cli import main

if __name__ == "__main__":
    main()
