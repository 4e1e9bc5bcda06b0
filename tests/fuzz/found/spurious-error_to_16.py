"""Fuzz reproducer (seed 4940): spurious-error at statement 0 (to): ember raises TypeError: expected a device, a device string or an index, got complex

Run: python tests/fuzz/found/spurious-error_to_16.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'm.manual_seed(0); x = m.arange(6.).reshape(2, 3); i = m.arange(6).reshape(2, 3); e = m.zeros(0, 3); s = m.tensor(2.5); b = m.tensor([True, False]); r = x.to(1j)', 'out': 'r', 'op': 'to', 'novalues': False},
]

if __name__ == "__main__":
    main(PROGRAM)
