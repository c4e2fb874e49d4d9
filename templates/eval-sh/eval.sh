#!/usr/bin/env bash
# Protected eval entrypoint of this benchmark: `bash eval.sh dev|test`.
# Prints exactly one `score: <float>` line on stdout; everything else goes to stderr.
# Exit 0 whenever a score was printed, 2 for a missing or unknown split, anything
# else when the harness itself failed (and then no score line is printed).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
split="${1:-}"
case "$split" in
  dev | test) shift ;;
  *)
    echo "usage: bash eval.sh dev|test [arbor benchmark eval options]" >&2
    exit 2
    ;;
esac

# Find arbor: $ARBOR first, then the arbor checkout this folder lives in, then the PATH.
arbor=()
if [ -n "${ARBOR:-}" ]; then
  case "$ARBOR" in
    *.js | *.mjs) arbor=(node "$ARBOR") ;;
    *) arbor=("$ARBOR") ;;
  esac
else
  dir="$here"
  while [ "$dir" != "/" ]; do
    if [ -f "$dir/dist/cli/index.js" ] && grep -qs '"name": "arbor"' "$dir/package.json"; then
      arbor=(node "$dir/dist/cli/index.js")
      break
    fi
    dir="$(dirname "$dir")"
  done
  if [ ${#arbor[@]} -eq 0 ] && command -v arbor > /dev/null 2>&1; then
    arbor=(arbor)
  fi
fi
if [ ${#arbor[@]} -eq 0 ]; then
  echo "eval.sh: arbor not found: put it on the PATH (run 'npm link' in the arbor repository) or set ARBOR=/path/to/arbor" >&2
  exit 127
fi

exec "${arbor[@]}" benchmark eval "$here" "$split" "$@"
