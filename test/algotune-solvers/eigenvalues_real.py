# A faster solver of AlgoTune's eigenvalues_real (arbor's own): eigenvalues only (no eigenvectors),
# descending, as the list the task's validator asks for.
import numpy as np


class Solver:
    def solve(self, problem, **kwargs):
        return np.linalg.eigvalsh(problem)[::-1].tolist()
