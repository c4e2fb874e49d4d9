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
    "dev/grid88": ({"N": 7744, "M": 23000}, "0-1"),        # K = 30624
    "dev/highway88": ({"N": 7744, "M": 31000}, "2"),       # K + 376
    "test/grid88": ({"N": 7744, "M": 23000}, "1000-1001"),
    "test/highway88": ({"N": 7744, "M": 31000}, "1002"),
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
