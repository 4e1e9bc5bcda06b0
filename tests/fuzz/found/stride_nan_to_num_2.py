"""Fuzz reproducer (seed 10004384): stride at statement 1 (nan_to_num): strides (2, 1) vs torch (1, 4) (shape (4, 2))

Run: python tests/fuzz/found/stride_nan_to_num_2.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'v1 = m.tensor([[3, 0.94, -3.25, 0.12], [-3.75, -0.5, -3.25, 2.75]], dtype=m.float64).transpose(1, 0)', 'out': 'v1', 'op': 'tensor'},
    {'src': 'v4 = m.nan_to_num(v1, out=m.zeros(0, dtype=m.float64))', 'out': 'v4', 'op': 'nan_to_num'},
]

if __name__ == "__main__":
    main(PROGRAM)
