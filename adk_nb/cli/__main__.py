"""`python -m adk_nb.cli ...` is `adk-nb ...`."""

import sys

from . import main

sys.exit(main())
