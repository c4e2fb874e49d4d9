"""Run the reference gate's main() on many argument sets in one Python process.

Usage: python3 py-driver.py REFERENCE.py JOBS.json
JOBS.json: [{"dir": "/abs/folder", "argv": ["--spec", "..."]}, ...]. For each job
the working directory is `dir` and the reference's defaults point into it (as if
the reference lived there); writes py.stdout, py.stderr (bytes as the reference's
own streams would encode them) and py.rc into `dir`.

main() is called from module level so that the Python stack is as deep as when
the reference runs as a script (the JSON scanner's recursion limit depends on it).
"""
import contextlib
import importlib.util
import io
import json
import os
import sys
import traceback
from pathlib import Path

spec = importlib.util.spec_from_file_location("agent_gate_reference", sys.argv[1])
ref = importlib.util.module_from_spec(spec)
sys.modules["agent_gate_reference"] = ref
spec.loader.exec_module(ref)
with open(sys.argv[2], encoding="utf-8") as handle:
    jobs = json.load(handle)

for job in jobs:
    os.chdir(job["dir"])
    here = Path(os.getcwd())
    ref.DEFAULT_SPEC = here / "benchmark_spec.json"
    ref.DEFAULT_CASES = here / "benchmark_cases.json"
    ref.DEFAULT_RESULTS = here / "benchmark_results_pass.json"
    out = io.StringIO()
    err = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = ref.main(job["argv"])
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 1
        except BaseException:
            traceback.print_exc()
            rc = 1
    with open("py.stdout", "wb") as handle:
        handle.write(out.getvalue().encode("utf-8", "surrogateescape"))
    with open("py.stderr", "wb") as handle:
        handle.write(err.getvalue().encode("utf-8", "backslashreplace"))
    with open("py.rc", "w") as handle:
        handle.write(str(rc))
