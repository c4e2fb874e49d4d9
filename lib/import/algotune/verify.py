"""Verifier: the task's own is_solution(problem, solution), on the answer decoded here from its
bytes (never an object the solution made). An answer that does not decode, an is_solution that
raises on it, or anything but True fails the case; `valid` is 1 for a passed case, else 0."""
import algotune_entry as entry


def verify(point, args, expected, actual, accept):
    problem = entry.objects.unpack(args["problem"])
    try:
        answer = entry.objects.unpack(actual["solution"])
    except entry.objects.EncodingError:
        return {"passed": False, "metrics": {"valid": 0, "decoded": 0}}
    try:
        verdict = entry.task().is_solution(problem, answer)
    except Exception:  # noqa: BLE001 - AlgoTune counts a validator that raises on an answer as a rejection
        verdict = False
    passed = verdict is True or (type(verdict).__name__ == "bool_" and bool(verdict))
    return {"passed": passed, "metrics": {"valid": int(passed), "decoded": 1}}
