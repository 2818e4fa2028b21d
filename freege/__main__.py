"""``python -m freege``: the ``freege`` command line (:func:`freege.cli.main`)."""

import sys

from freege.cli import main

if __name__ == "__main__":
    sys.exit(main())
