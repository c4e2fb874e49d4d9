"""Oracle: the task's own solve(problem), encoded into the `solution` tensor of S bytes."""
import algotune_entry as entry


def oracle(point, args):
    problem = entry.objects.unpack(args["problem"])
    return {"solution": entry.tensor(entry.task().solve(problem), point["S"])}
