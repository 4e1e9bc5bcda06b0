"""Fuzz reproducer (seed 10036103): missing-error at statement 2 (floor_divide): torch raises RuntimeError: result type Float can't be cast to the desired output type Bool; ember gives ('T', 'bool', (4,), (1,), 0, True, b'\x01\x01\

Run: python tests/fuzz/found/missing-error_floor_divide_7.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'v0 = m.tensor([-1, -1.16, 1, -2.5], dtype=m.float32, requires_grad=True)', 'out': 'v0', 'op': 'tensor'},
    {'src': 'v4 = m.logical_or(v0, m.tensor(False, dtype=m.bool))', 'out': 'v4', 'op': 'logical_or'},
    {'src': 'v5 = v4.floor_divide_(v0)', 'out': 'v5', 'op': 'floor_divide'},
]

if __name__ == "__main__":
    main(PROGRAM)
