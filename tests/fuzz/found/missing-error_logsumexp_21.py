"""Fuzz reproducer (seed 1457): missing-error at statement 0 (logsumexp): torch raises RuntimeError: output with shape [] doesn't match the broadcast shape [1, 1]; ember gives ('T', 'float32', (), (), 0, False, b'#\x99\xae@'

Run: python tests/fuzz/found/missing-error_logsumexp_21.py   (runs torch, then ember; prints what differs)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from repro import main  # noqa: E402

PROGRAM = [
    {'src': 'm.manual_seed(0); x = m.arange(6.).reshape(2, 3); i = m.arange(6).reshape(2, 3); e = m.zeros(0, 3); s = m.tensor(2.5); b = m.tensor([True, False]); r = x.logsumexp(())', 'out': 'r', 'op': 'logsumexp', 'novalues': False},
]

if __name__ == "__main__":
    main(PROGRAM)
