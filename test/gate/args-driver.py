"""Run the reference gate's main() on many command lines in one Python process.

Usage: python3 args-driver.py REFERENCE.py FOLDER < JOBS.json > OUTCOMES.json
JOBS.json: [{"argv": [...], "columns": 80 or null}, ...]. Each job runs in FOLDER
with the reference's defaults pointing into it, sys.argv[0] set to
"arbor benchmark gate" (the program name argparse shows) and COLUMNS set (or
unset: stdout is a pipe, so argparse then lays out for 80 columns). Prints
[{"stdout", "stderr", "rc"}, ...]; an uncaught exception (the reference's
traceback) is its last line.
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
# The help texts arbor gives the options (GATE_HELP: JSON, option dest -> text), which the
# reference leaves without: argparse lays them out, so the port's layout can be compared.
option_help = json.loads(os.environ.get("GATE_HELP", "{}"))
if option_help:
    build_parser = ref.build_parser

    def described_parser():
        parser = build_parser()
        for action in parser._actions:
            if action.dest in option_help:
                action.help = option_help[action.dest]
        return parser

    ref.build_parser = described_parser
os.chdir(sys.argv[2])
here = Path(os.getcwd())
ref.DEFAULT_SPEC = here / "benchmark_spec.json"
ref.DEFAULT_CASES = here / "benchmark_cases.json"
ref.DEFAULT_RESULTS = here / "benchmark_results_pass.json"
sys.argv = ["arbor benchmark gate"]
outcomes = []
for job in json.load(sys.stdin):
    if job["columns"] is None:
        os.environ.pop("COLUMNS", None)
    else:
        os.environ["COLUMNS"] = str(job["columns"])
    out = io.StringIO()
    err = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = ref.main(job["argv"])
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 1
        except BaseException as exc:
            rc = 1
            err = io.StringIO(traceback.format_exception_only(exc)[-1])
    outcomes.append({"stdout": out.getvalue(), "stderr": err.getvalue(), "rc": rc})
json.dump(outcomes, sys.stdout)
