"""Fuzz reproducer (seed 10019993): stride at statement 2 (nan_to_num): strides (1, 6, 3, 6) vs torch (8, 8, 4, 1) (shape (3, 1, 2, 4))

Run: python tests/fuzz/found/stride_nan_to_num_5.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'v0 = m.tensor([[[8, 9, 1], [2, 10, 7]], [[7, 5, 6], [0, 9, 4]], [[12, 8, 12], [7, 12, 1]], [[9, 2, 5], [7, 4, 2]]], dtype=m.uint8).permute(2, 1, 0)', 'out': 'v0', 'op': 'tensor'},
    {'src': 'v3 = v0.unflatten(-3, (3, -1))', 'out': 'v3', 'op': 'unflatten'},
    {'src': 'v4 = m.nan_to_num(v3, out=m.zeros(0, dtype=m.uint8))', 'out': 'v4', 'op': 'nan_to_num'},
]

if __name__ == "__main__":
    main(PROGRAM)
