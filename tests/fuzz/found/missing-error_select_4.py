"""Fuzz reproducer (seed 2386): missing-error at statement 0 (select): torch raises RuntimeError: scalar.isIntegral( false) INTERNAL ASSERT FAILED at "/__w/pytorch/pytorch/torch/csrc/utils/pybind.cpp":27, please report a 

Run: python tests/fuzz/found/missing-error_select_4.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'm.manual_seed(0); x = m.arange(6.).reshape(2, 3); i = m.arange(6).reshape(2, 3); e = m.zeros(0, 3); s = m.tensor(2.5); b = m.tensor([True, False]); r = x.select(0, m.tensor([True]))', 'out': 'r', 'op': 'select', 'novalues': False},
]

if __name__ == "__main__":
    main(PROGRAM)
