"""Recorded runs of a live model, replayed without weights.

- `runs`: how a run is keyed, written and read back (`data/recordings/<tier>/<name>.json`).
- `recorder`: `RecordingModel`, which passes each call to a live model and appends it to a recording.
- `player`: `ReplayModel`, which answers exactly the recorded requests.
"""
