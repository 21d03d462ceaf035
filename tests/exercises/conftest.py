"""Set-up for the exercises' tests: this folder's helper module (`notebook_exercises`, the
notebooks' "Your turn" cells and their solutions) is importable from the test files."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
