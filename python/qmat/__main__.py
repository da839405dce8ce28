"""`python -m qmat import ...`: the qmat command line (qmat.cli)."""
import sys

from .cli import main

sys.exit(main())
