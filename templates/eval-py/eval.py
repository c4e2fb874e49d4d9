#!/usr/bin/env python3
"""Protected eval entrypoint of this benchmark: `python3 eval.py --split dev|test`.

Prints exactly one `score: <float>` line on stdout; everything else goes to stderr.
Exit 0 whenever a score was printed, 2 for a missing or unknown split, 127 when
no arbor is found, anything else when the harness itself failed (and then no
score line is printed). It runs
the same pipeline as eval.sh would: `arbor benchmark eval <this folder> <split>`.
"""
import os
import shutil
import sys

# The arbor that scaffolded this folder (its CLI); passed over when it is not
# there, e.g. in a clone on another machine.
MADE_BY = {{made_by_py}}

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


def bad_arbor(env, why):
    print(f"eval.py: ARBOR={env}: {why}; point ARBOR at arbor's dist/cli/index.js or an arbor command, or unset it", file=sys.stderr)
    sys.exit(127)


def find_arbor(here):
    """$ARBOR first; then, from this folder up, an arbor checkout or an arbor installed in the
    folder's repository (node_modules/.bin/arbor); then the arbor that scaffolded this folder; then the PATH."""
    env = os.environ.get("ARBOR", "")
    if env:
        if env.endswith((".js", ".mjs")):
            if not os.path.isfile(env):
                bad_arbor(env, "no such file")
            return ["node", env]
        if "/" in env:
            if not (os.path.isfile(env) and os.access(env, os.X_OK)):
                bad_arbor(env, "no such executable file")
        elif shutil.which(env) is None:
            bad_arbor(env, "no such command on the PATH")
        return [env]
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
        installed = os.path.join(folder, "node_modules", ".bin", "arbor")
        if os.path.isfile(installed) and os.access(installed, os.X_OK):
            return [installed]
        folder = os.path.dirname(folder)
    if MADE_BY and os.path.isfile(MADE_BY):
        return ["node", MADE_BY]
    return ["arbor"] if shutil.which("arbor") else None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    split, rest = split_and_rest(sys.argv[1:])
    if split not in ("dev", "test"):
        print(USAGE, file=sys.stderr)
        sys.exit(2)
    arbor = find_arbor(here)
    if arbor is None:
        print("eval.py: arbor not found: install it in this benchmark's repository (npm install /path/to/arbor), set ARBOR=/path/to/arbor/dist/cli/index.js, or put arbor on the PATH (npm link in arbor's repository)", file=sys.stderr)
        sys.exit(127)
    if arbor[0] == "node" and shutil.which("node") is None:
        print("eval.py: node not found on the PATH: arbor needs Node.js 20 or later", file=sys.stderr)
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
