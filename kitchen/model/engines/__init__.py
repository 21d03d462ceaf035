"""What this CPU can do, and the engine settings a live model runs in.

- `cpu`: the CPU's features and the default setting chosen from them.
- `onednn`: float32 linear layers computed by oneDNN rather than MKL.
- `quantized`: the `int8` setting: every linear layer on int8 weights, and a lean decode step.
- `decode_copies`: the `int8-decode` setting: float32 pre-fill, int8 copies of the weights to decode.

How fast each runs here is measured by `scripts/benchmark.py`, written to docs/speed.md.
"""
