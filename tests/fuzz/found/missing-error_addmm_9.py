"""Fuzz reproducer (seed 10042543): missing-error at statement 0 (addmm): torch raises RuntimeError: result type Float can't be cast to the desired output type Int; ember gives ('T', 'int32', (2, 3), (3, 1), 0, False, b'\x00

Run: python tests/fuzz/found/missing-error_addmm_9.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'v3 = m.addmm(m.tensor([-4, -2147483648, -1], dtype=m.int32), m.tensor([[], [], [], []], dtype=m.int32)[0:4:2, 0:0:2], m.tensor([-6], dtype=m.int32).expand(0, 3), beta=0.5, alpha=2)', 'out': 'v3', 'op': 'addmm'},
]

if __name__ == "__main__":
    main(PROGRAM)
