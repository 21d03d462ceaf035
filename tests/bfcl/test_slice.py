"""Chapter 08's CI slice: 20 cases of each BFCL category, live on the 0.5B pack, native mode.

The committed slice (data/bfcl/slice-0.5b-native-int8-decode.jsonl, the setting `make test` runs
in) was made by `scripts/bfcl_run.py --tier 0.5b --mode native --slice 20 --dtype int8-decode --out
...` in batches of 16; this test runs the same cases the same way (same batches, same setting) and
compares each verdict. Sums can differ in the last bits between CPUs (AVX2 or AVX-512 kernels),
which can flip a rare greedy token, so up to 4 of the 100 verdicts may differ; every difference is
printed. On the 2-core AVX2 machine the slice was made on, it took 281 s.
"""

import pytest
import torch

from kitchen.bfcl.data import load_cases
from kitchen.bfcl.results import RESULTS_DIR, slice_cases
from kitchen.bfcl.runner import read_results, run_cases
from kitchen.model.load import load_model

pytestmark = [pytest.mark.model,
              pytest.mark.skipif(not torch.backends.mkldnn.is_available(), reason="int8-decode needs oneDNN")]
COMMITTED = RESULTS_DIR / "slice-0.5b-native-int8-decode.jsonl"
PER_CATEGORY = 20


def test_the_live_slice_matches_the_committed_verdicts():
    committed = {line["id"]: line for line in read_results(COMMITTED)}
    cases = slice_cases(load_cases(), PER_CATEGORY)
    assert [c.id for c in cases] == list(committed) or set(c.id for c in cases) == set(committed)
    batch = {line["batch_size"] for line in committed.values()}
    assert len(cases) == 5 * PER_CATEGORY and len(batch) == 1
    model = load_model("0.5b", "pack", dtype="int8-decode", announce=False)
    lines = run_cases(model, cases, "native", None, batch_size=batch.pop(), progress=False)
    differ = [(line["id"], committed[line["id"]]["valid"], line["valid"], line["reply"][:120])
              for line in lines if line["valid"] != committed[line["id"]]["valid"]]
    same_text = sum(line["reply"] == committed[line["id"]]["reply"] for line in lines)
    print(f"{same_text}/{len(cases)} replies identical; verdicts that differ: {differ}")
    assert len(differ) <= 4, differ
