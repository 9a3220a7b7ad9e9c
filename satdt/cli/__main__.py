"""``python -m satdt.cli``: the ``satdt`` command."""

import sys

from . import main

sys.exit(main())
