import sys

from freege.cli import main

sys.exit(main())
