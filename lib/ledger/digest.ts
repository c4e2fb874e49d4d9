/** `solution_sha256`: one digest over a solution's editable files. */
import {createHash} from 'node:crypto';

/** One editable file: its path relative to the benchmark folder and its bytes. */
export interface SolutionFile {
  path: string;
  bytes: Uint8Array;
}

/**
 * SHA-256 (hex) over the files sorted by path (code-unit order, `/`
 * separators). Each file is framed as `<path byte length> <path>\n<content
 * byte length>\n<content>`, so no two different sets of files share an input;
 * an empty set is the digest of the header alone. The header names the scheme
 * so a later change of framing cannot collide with this one.
 */
export function solutionDigest(files: readonly SolutionFile[]): string {
  const sorted = files
    .map((file) => ({path: file.path.split('\\').join('/'), bytes: file.bytes}))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const hash = createHash('sha256').update('arbor-solution-v1\n');
  for (let i = 0; i < sorted.length; i++) {
    const {path, bytes} = sorted[i]!;
    if (i > 0 && sorted[i - 1]!.path === path) throw new RangeError(`solutionDigest: the file ${path} is listed twice`);
    const name = Buffer.from(path, 'utf8');
    hash.update(`${name.length} `).update(name).update(`\n${bytes.length}\n`).update(bytes);
  }
  return hash.digest('hex');
}
