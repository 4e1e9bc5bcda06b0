"""Every op of the op database x dtype x sample x form (function, method, in-place, out=, operator) against torch:
values, dtype, shape and, for elementwise and view ops, strides."""
import pytest

import opdb
from opdb import torch_one_thread  # noqa: F401 - autouse fixture

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # torch.ger deprecated, degrees of freedom <= 0


def _params():
    for op in opdb.OPS:
        for dtype in opdb.DTYPES:
            yield from opdb.params(op, dtype, list(opdb.cases(op, dtype)))


@pytest.mark.parametrize("op,dtype,group", list(_params()))
def test_values(op, dtype, group):
    opdb.run_group(op, dtype, group)
