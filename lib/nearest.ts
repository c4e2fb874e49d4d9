/** "Did you mean": the known name nearest a mistyped one, for the CLI's commands and a plan's keys alike. */

/** Edit distance between two short strings (Levenshtein: insertions, deletions, substitutions). */
export function distance(a: string, b: string): number {
  const row = Array.from({length: b.length + 1}, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const temp = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = temp;
    }
  }
  return row[b.length]!;
}

/**
 * The candidate nearest `word` (case-insensitive), when it is close enough to
 * be a typo of it: at most 2 edits, or a third of the word's length for
 * longer words. Ties go to the first candidate.
 */
export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  let best: {name: string; edits: number} | undefined;
  for (const name of candidates) {
    const edits = distance(word.toLowerCase(), name.toLowerCase());
    if (!best || edits < best.edits) best = {name, edits};
  }
  return best && best.edits <= Math.max(2, Math.floor(word.length / 3)) ? best.name : undefined;
}
