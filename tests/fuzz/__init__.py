"""Differential tester (random programs on ember vs torch) and bad-input probes; see __main__.py."""
