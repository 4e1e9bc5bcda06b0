"""Fuzz reproducer (seed 4872): exception-type at statement 0 (masked_fill): ember TypeError: masked_fill(): argument 'value' (position 3) must be Number, not complex

Run: python tests/fuzz/found/exception-type_masked_fill_15.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'm.manual_seed(0); x = m.arange(6.).reshape(2, 3); i = m.arange(6).reshape(2, 3); e = m.zeros(0, 3); s = m.tensor(2.5); b = m.tensor([True, False]); r = x.masked_fill(x > 1, 1j)', 'out': 'r', 'op': 'masked_fill', 'novalues': False},
]

if __name__ == "__main__":
    main(PROGRAM)
