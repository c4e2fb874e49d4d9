"""Generator: AlgoTune's generate_problem(n, random_seed) at the point's n, the seed drawn from the
case's stream (algotune_entry.seed_of), encoded into the `problem` tensor of B bytes."""
import algotune_entry as entry


def generate(point, stream):
    problem = entry.task().generate_problem(int(point["n"]), random_seed=entry.seed_of(stream))
    return {"problem": entry.tensor(problem, point["B"])}
