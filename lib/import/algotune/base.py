"""arbor's stand-in for AlgoTune's ``AlgoTuneTasks.base``: what a task module imports from it
(``register_task`` and ``Task``), and nothing of AlgoTuner (no datasets, no timing, no config).

An imported entry runs the task's own module unchanged against this file: ``generate_problem``,
``solve`` and ``is_solution`` are the task's; the constructor keeps the attributes AlgoTune's
base class sets, so a task that reads them finds them.
"""

TASK_REGISTRY = {}


def register_task(name):
    """Record a Task subclass under its AlgoTune name."""

    def decorator(cls):
        TASK_REGISTRY[name] = cls
        return cls

    return decorator


class Task:
    """The base class of an AlgoTune task, reduced to its contract."""

    def __init__(self, n=None, dataset_size=None, target_time_ms=None, data_dir=None, **kwargs):
        self.task_name = self.__class__.__name__
        self.k = None
        self.oracle = self.solve
        self.n = n
        self.dataset_size = dataset_size
        self.target_time_ms = target_time_ms
        self.data_dir = data_dir

    def generate_problem(self, n, random_seed=1):
        raise NotImplementedError

    def solve(self, problem):
        raise NotImplementedError

    def is_solution(self, problem, solution):
        raise NotImplementedError
