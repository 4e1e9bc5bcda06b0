"""Fuzz reproducer (seed 5110): exception-type at statement 0 (fill_): ember TypeError: fill_(): incompatible function arguments. The following argument types are supported:

Run: python tests/fuzz/found/exception-type_fill__18.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'm.manual_seed(0); x = m.arange(6.).reshape(2, 3); i = m.arange(6).reshape(2, 3); e = m.zeros(0, 3); s = m.tensor(2.5); b = m.tensor([True, False]); r = x.fill_(1j)', 'out': 'r', 'op': 'fill_', 'novalues': False},
]

if __name__ == "__main__":
    main(PROGRAM)
