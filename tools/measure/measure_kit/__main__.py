"""python3 -m measure_kit --config CONFIG.json --output DIR [options]: see README.md."""

import sys

from .cli import main

sys.exit(main())
