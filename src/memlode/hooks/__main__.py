"""``python -m memlode.hooks <event>``: run one hook by hand. Always exits 0.

``memlode init`` installs the same entry as ``python -c`` (memlode.hook_events.HOOK_CODE),
which skips runpy's imports.
"""

import sys

from memlode.hooks.dispatch import main

if __name__ == "__main__":
    main(sys.argv[1:], exit_process=True)
    sys.exit(0)  # not reached: main ends the process
