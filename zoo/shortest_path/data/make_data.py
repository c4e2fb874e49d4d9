"""Writes data/dev/ and data/test/ of shortest_path from the entry's own bundle (deterministic).

    python3 zoo/shortest_path/data/make_data.py

Each folder is `arbor bundle <bundle> make <folder> --point ... --seeds ...`: the bundle's generator
draws the graph from the SHA-256 stream of the spec and the seed, and its oracle writes expected/.
Re-running it rewrites the same bytes. arbor is found as eval.sh finds it: $ARBOR (a .js file or a
command), else the arbor checkout this folder sits in, else `arbor` on the PATH.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
BUNDLE = HERE.parent / "bundle"

# folder: (point, seeds). K, the grid's street arcs, is 4 W (W - 1) for N = W * W nodes: M below K
# closes streets at random (some nodes become unreachable), M above K adds random highway arcs.
FOLDERS = {
    "dev/grid100": ({"N": 10000, "M": 30000}, "0"),        # K = 39600
    "dev/highway96": ({"N": 9216, "M": 37000}, "1"),       # K = 36480, + 520
    "test/grid96": ({"N": 9216, "M": 27000}, "1000-1001"),  # K = 36480
    "test/highway96": ({"N": 9216, "M": 37000}, "1002"),   # K = 36480, + 520
}


def arbor():
    if os.environ.get("ARBOR"):
        command = os.environ["ARBOR"]
        return ["node", command] if command.endswith((".js", ".mjs")) else [command]
    for folder in HERE.parents:
        cli = folder / "dist" / "cli" / "index.js"
        if cli.is_file() and '"name": "arbor"' in (folder / "package.json").read_text(errors="replace"):
            return ["node", str(cli)]
    if shutil.which("arbor"):
        return ["arbor"]
    sys.exit("make_data.py: arbor not found: set ARBOR=/path/to/arbor/dist/cli/index.js or put arbor on the PATH")


def main():
    command = arbor()
    for name, (point, seeds) in FOLDERS.items():
        point_json = "{" + ", ".join(f'"{k}": {v}' for k, v in point.items()) + "}"
        subprocess.run([*command, "bundle", str(BUNDLE), "make", str(HERE / name), "--point", point_json, "--seeds", seeds], check=True)


if __name__ == "__main__":
    main()
