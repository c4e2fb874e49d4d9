#!/usr/bin/env python3
"""Protected eval entrypoint of this benchmark: `python3 eval.py --split dev|test`.

Prints exactly one `score: <float>` line on stdout; everything else goes to stderr.
Exit 0 whenever a score was printed, 2 for a missing or unknown split, anything
else when the harness itself failed (and then no score line is printed). It runs
the same pipeline as eval.sh would: `arbor benchmark eval <this folder> <split>`.
"""
import os
import shutil
import sys

USAGE = "usage: python3 eval.py --split dev|test [arbor benchmark eval options]"


def split_and_rest(argv):
    """The split of `--split dev|test` (or `--split=...`) and the arguments left for arbor."""
    split, rest, k = None, [], 0
    while k < len(argv):
        arg = argv[k]
        if arg == "--split" and k + 1 < len(argv):
            split, k = argv[k + 1], k + 2
            continue
        if arg.startswith("--split="):
            split = arg[len("--split="):]
        else:
            rest.append(arg)
        k += 1
    return split, rest


def find_arbor(here):
    """$ARBOR first, then the arbor checkout this folder lives in, then the PATH."""
    env = os.environ.get("ARBOR", "")
    if env:
        return ["node", env] if env.endswith((".js", ".mjs")) else [env]
    folder = here
    while folder != os.path.dirname(folder):
        cli = os.path.join(folder, "dist", "cli", "index.js")
        try:
            with open(os.path.join(folder, "package.json"), encoding="utf-8", errors="replace") as f:
                is_arbor = '"name": "arbor"' in f.read()
        except OSError:
            is_arbor = False
        if os.path.isfile(cli) and is_arbor:
            return ["node", cli]
        folder = os.path.dirname(folder)
    found = shutil.which("arbor")
    return ["arbor"] if found else None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    split, rest = split_and_rest(sys.argv[1:])
    if split not in ("dev", "test"):
        print(USAGE, file=sys.stderr)
        sys.exit(2)
    arbor = find_arbor(here)
    if arbor is None:
        print("eval.py: arbor not found: put it on the PATH (run 'npm link' in the arbor repository) or set ARBOR=/path/to/arbor", file=sys.stderr)
        sys.exit(127)
    command = arbor + ["benchmark", "eval", here, split] + rest
    sys.stdout.flush()
    try:
        os.execvp(command[0], command)
    except OSError as error:
        print(f"eval.py: cannot run {command[0]}: {error.strerror}", file=sys.stderr)
        sys.exit(127)


if __name__ == "__main__":
    main()
