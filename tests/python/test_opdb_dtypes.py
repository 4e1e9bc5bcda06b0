"""Type promotion of every binary op of the op database: result dtype (and values) for every dtype pair,
0-dim tensors on either side and Python numbers, against torch."""
import pytest

import opdb
from opdb import torch_one_thread  # noqa: F401 - autouse fixture

BINARY = [op for op in opdb.OPS if op.promotion]


def _params():
    for op in BINARY:
        for a in opdb.DTYPES:
            yield from opdb.params(op, a, [(s, "fn" if isinstance(s.args[0], opdb.T) else "operator", None)
                                           for s in op.promotion(a)])


@pytest.mark.parametrize("op,dtype,group", list(_params()))
def test_promotion(op, dtype, group):
    opdb.run_group(op, dtype, group, declared=False)
