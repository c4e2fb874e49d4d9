#!/usr/bin/env bash
# Protected eval entrypoint of this benchmark: `bash eval.sh dev|test`.
# Prints exactly one `score: <float>` line on stdout; everything else goes to stderr.
# Exit 0 whenever a score was printed, 2 for a missing or unknown split, 127 when
# no arbor is found, anything else when the harness itself failed (and then no
# score line is printed).
set -euo pipefail

# The arbor that scaffolded this folder (its CLI); passed over when it is not
# there, e.g. in a clone on another machine.
made_by=''

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
split="${1:-}"
case "$split" in
  dev | test) shift ;;
  *)
    echo "usage: bash eval.sh dev|test [arbor benchmark eval options]" >&2
    exit 2
    ;;
esac

# Find arbor: $ARBOR first; then, from this folder up, an arbor checkout or an
# arbor installed in the folder's repository (node_modules/.bin/arbor); then the
# arbor that scaffolded this folder; then the PATH.
arbor=()
if [ -n "${ARBOR:-}" ]; then
  bad_arbor() {
    echo "eval.sh: ARBOR=$ARBOR: $1; point ARBOR at arbor's dist/cli/index.js or an arbor command, or unset it" >&2
    exit 127
  }
  case "$ARBOR" in
    *.js | *.mjs)
      [ -f "$ARBOR" ] || bad_arbor "no such file"
      arbor=(node "$ARBOR")
      ;;
    */*)
      [ -f "$ARBOR" ] && [ -x "$ARBOR" ] || bad_arbor "no such executable file"
      arbor=("$ARBOR")
      ;;
    *)
      command -v "$ARBOR" > /dev/null 2>&1 || bad_arbor "no such command on the PATH"
      arbor=("$ARBOR")
      ;;
  esac
else
  dir="$here"
  while [ "$dir" != "/" ]; do
    if [ -f "$dir/dist/cli/index.js" ] && grep -qs '"name": "arbor"' "$dir/package.json"; then
      arbor=(node "$dir/dist/cli/index.js")
      break
    fi
    if [ -x "$dir/node_modules/.bin/arbor" ]; then
      arbor=("$dir/node_modules/.bin/arbor")
      break
    fi
    dir="$(dirname "$dir")"
  done
  if [ ${#arbor[@]} -eq 0 ] && [ -n "$made_by" ] && [ -f "$made_by" ]; then
    arbor=(node "$made_by")
  fi
  if [ ${#arbor[@]} -eq 0 ] && command -v arbor > /dev/null 2>&1; then
    arbor=(arbor)
  fi
fi
if [ ${#arbor[@]} -eq 0 ]; then
  echo "eval.sh: arbor not found: install it in this benchmark's repository (npm install /path/to/arbor), set ARBOR=/path/to/arbor/dist/cli/index.js, or put arbor on the PATH (npm link in arbor's repository)" >&2
  exit 127
fi
if [ "${arbor[0]}" = node ] && ! command -v node > /dev/null 2>&1; then
  echo "eval.sh: node not found on the PATH: arbor needs Node.js 20 or later" >&2
  exit 127
fi

exec "${arbor[@]}" benchmark eval "$here" "$split" "$@"
