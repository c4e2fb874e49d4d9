"""Baseline solution of topk_records: a full lexicographic sort of every record, then the first K.

Contract (run by arbor's protected runner):
  init(point) -> state          not timed; point = {"N", "K"}
  run(state, inputs) -> outputs timed; inputs["key1"]: int32 (N,), inputs["key2"]: float32 (N,),
                                inputs["id"]: int32 (N,), distinct
                                returns {"top": int32 (K,)}: the row indices of the K best records,
                                best first, under key1 descending, then key2 ascending, then id
                                ascending (compared byte for byte)
  free(state)                   optional
"""

import numpy as np


def init(point):
    return {"K": point["K"]}


def run(state, inputs):
    # np.lexsort sorts by its last key first; key1 is negated in int64 (no overflow at -2^31).
    order = np.lexsort((inputs["id"], inputs["key2"], -inputs["key1"].astype(np.int64)))
    return {"top": order[:state["K"]].astype(np.int32)}


def free(state):
    pass
