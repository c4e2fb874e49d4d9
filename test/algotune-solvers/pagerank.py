# A faster solver of AlgoTune's pagerank (arbor's own): power iteration on a sparse transition matrix with
# networkx's damping, tolerance and dangling-node rule, in place of building a networkx graph.
import numpy as np
import scipy.sparse as sp


class Solver:
    def solve(self, problem, **kwargs):
        adj = problem["adjacency_list"]
        n = len(adj)
        if n == 0:
            return {"pagerank_scores": []}
        if n == 1:
            return {"pagerank_scores": [1.0]}
        alpha, tol, max_iter = 0.85, 1e-06, 100
        degree = np.fromiter((len(a) for a in adj), dtype=np.int64, count=n)
        rows = np.repeat(np.arange(n), degree)
        cols = np.fromiter((v for a in adj for v in a), dtype=np.int64, count=int(degree.sum()))
        weights = 1.0 / degree[rows]
        transition = sp.csr_matrix((weights, (cols, rows)), shape=(n, n))
        dangling = degree == 0
        x = np.full(n, 1.0 / n)
        for _ in range(max_iter):
            last = x
            x = alpha * (transition @ last + last[dangling].sum() / n) + (1 - alpha) / n
            if np.abs(x - last).sum() < n * tol:
                break
        return {"pagerank_scores": (x / x.sum()).tolist()}
