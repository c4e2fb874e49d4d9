"""Generator: AlgoTune's generate_problem(n, random_seed) at the point's n, the seed drawn from the
case's stream (algotune_entry.seed_of), the global `random` and `numpy.random` seeded from it too
(algotune_entry.generate_problem), encoded into the `problem` tensor of B bytes."""
import algotune_entry as entry


def generate(point, stream):
    problem = entry.generate_problem(int(point["n"]), entry.seed_of(stream))
    return {"problem": entry.tensor(problem, point["B"])}
