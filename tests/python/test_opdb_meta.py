"""The op database itself: every op it names exists in both libraries in every form torch has (forms ember lacks
are strict xfails), its dtypes are torch's, every row of unary_ops.def has an entry, and the exception rule
cannot be passed by a name that does not exist."""
import glob
import os
import re

import pytest
import torch

import ember
import opdb
from conftest import outcome
from opdb import torch_one_thread  # noqa: F401 - autouse fixture

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")  # torch.ger deprecated, degrees of freedom <= 0

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def has_form(m, op, form):
    """The form exists in library m and takes the entry's first sample's arguments (no TypeError)."""
    dtype = op.dtypes[-1]
    sample = next(iter(op.samples(dtype)))
    try:
        fn = op.callable(m, form)
    except AssertionError:
        return False
    args, kwargs = sample.build(m, dtype)
    if form == "out":
        kwargs["out_dtype"] = "float64" if dtype in opdb.FLOATS else dtype
    return not isinstance(outcome(lambda: fn(*args, **kwargs))[1], TypeError)


def _lacking(op, form):
    """The reproducer of a form ember lacks."""
    sample = next(iter(op.samples(op.dtypes[-1]))).name
    if form == "out":
        return f"ember.{op.ember_fn}({sample}, out=ember.empty(0)) raises TypeError; torch.{op.torch_fn} takes out="
    return f"x.{op.method_name}_({sample[sample.find(',') + 1:] if ',' in sample else ''}): ember.Tensor." \
        f"{op.method_name}_ is missing or refuses these arguments (TypeError); torch's exists"


def _form_params():
    for op in opdb.OPS:
        for form in sorted(set(op.forms) | op.missing):
            marks = [pytest.mark.xfail(strict=True, reason=_lacking(op, form))] if form in op.missing else []
            yield pytest.param(op, form, id=f"{op.name}-{form}", marks=marks)


@pytest.mark.parametrize("op,form", list(_form_params()))
def test_form_exists_in_both(op, form):
    assert has_form(torch, op, form), f"database: torch has no {form} form of {op.name}"
    assert has_form(ember, op, form), f"ember has no {form} form of {op.name}"


@pytest.mark.parametrize("op", opdb.OPS, ids=str)
def test_undeclared_dtypes_raise_in_torch(op):
    """A dtype an entry leaves out is one torch refuses (its first sample raises), so `dtypes` is torch's list."""
    form = "fn" if op.torch_fn else "method"
    for dtype in set(opdb.DTYPES) - set(op.dtypes):
        args, kwargs = next(iter(op.samples(dtype))).build(torch, dtype)
        assert outcome(lambda: op.callable(torch, form)(*args, **kwargs))[1] is not None, \
            f"database: torch supports {op.name} in {dtype}; add it to the entry's dtypes"


def test_names_are_unique():
    names = [op.name for op in opdb.OPS]
    assert len(names) == len(set(names))


def test_every_op_table_row_has_an_entry():
    """Every row of the op tables (unary_ops.def and its section files, binary_ops.def) has an entry."""
    tables = glob.glob(os.path.join(ROOT, "include", "**", "*.def"), recursive=True)
    rows = {name for path in tables
            for name in re.findall(r"^EMBER_(?:UNARY|BINARY)_OP\((\w+),", open(path).read(), re.M)}
    assert len(rows) > 60, tables
    missing = rows - {op.name for op in opdb.OPS}
    assert not missing, f"no op database entry for {sorted(missing)}"


def test_a_missing_op_fails_even_when_both_raise():
    """Both libraries raise AttributeError for `exq`: the lookup comes first, so the case fails."""
    typo = opdb.OpInfo("exq", opdb.unary_samples(), method=None)
    with pytest.raises(AssertionError, match="does not exist"):
        opdb.run_case(typo, "float32", next(iter(typo.samples("float32"))), "fn")


def test_a_wrong_dtype_declaration_fails():
    """neg of bool raises in both libraries; declared supported, the database is wrong and the case fails."""
    wrong = opdb.OpInfo("neg", opdb.unary_samples(), dtypes=opdb.DTYPES)
    with pytest.raises(AssertionError, match="database: torch raised"):
        opdb.run_case(wrong, "bool", next(iter(wrong.samples("bool"))), "fn")
    opdb.run_case(opdb.OpInfo("neg", opdb.unary_samples(), dtypes=opdb.NUMERIC), "bool",
                  next(iter(wrong.samples("bool"))), "fn")
