"""Where the project's own files are: the repository's `data/` folder."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "data"
