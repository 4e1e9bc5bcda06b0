def run_probes(jobs, timeout):
    raise NotImplementedError
