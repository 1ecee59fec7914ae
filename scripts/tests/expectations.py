"""The end-to-end tests' one way of checking (batch_e2e, slurm_e2e, service_e2e,
service_slurm_e2e): each expectation printed as it is met ("ok") or not ("FAILED"), the failed
ones kept for the test's exit code."""


class Expectations:
    """expect(cond, what): prints the line, keeps `what` in .failures when cond is false, and
    returns cond (so a check can go on only when an earlier one held)."""

    def __init__(self):
        self.failures = []

    def __call__(self, cond, what):
        print(("ok      " if cond else "FAILED  ") + what, flush=True)
        if not cond:
            self.failures.append(what)
        return cond
