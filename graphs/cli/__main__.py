"""``python -m graphs.cli``: the same as the ``kag`` console script."""

import sys

from graphs.cli import main

sys.exit(main())
