"""Test helper: run one zoo solution file on one case, outside the eval pipeline.

Reads a JSON job on stdin: {"solution": path, "point": {...}, "inputs": {name: {"dtype", "shape", "file"}},
"results": {name: {"dtype", "shape", "file"}}}; calls init/run/free and writes each result as raw
little-endian bytes of its dtype. Prints the seconds `run` took on stdout.
"""

import importlib.util
import json
import sys
import time

import numpy as np

job = json.load(sys.stdin)
spec = importlib.util.spec_from_file_location("solution", job["solution"])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
inputs = {
    name: np.fromfile(item["file"], dtype=np.dtype(item["dtype"]).newbyteorder("<")).reshape(item["shape"])
    for name, item in job["inputs"].items()
}
state = module.init(job["point"])
start = time.perf_counter()
outputs = module.run(state, inputs)
seconds = time.perf_counter() - start
if hasattr(module, "free"):
    module.free(state)
for name, item in job["results"].items():
    value = np.asarray(outputs[name]).astype(np.dtype(item["dtype"]).newbyteorder("<")).reshape(item["shape"])
    value.tofile(item["file"])
print(seconds)
