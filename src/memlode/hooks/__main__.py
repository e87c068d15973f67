"""``python -m memlode.hooks <event>``: the command ``memlode init`` installs. Always exits 0."""

import sys

from memlode.hooks.dispatch import main

if __name__ == "__main__":
    main(sys.argv[1:], exit_process=True)
    sys.exit(0)  # not reached: main ends the process
