/** arbor's own version, from the package.json of this install (not the working directory's). */
import {readFileSync} from 'node:fs';

let cached: string | undefined;

/** The `version` of arbor's package.json (found from `lib/` and from `dist/lib/`), or `unknown`. */
export function arborVersion(): string {
  if (cached !== undefined) return cached;
  for (const candidate of ['../package.json', '../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(candidate, import.meta.url), 'utf8')) as {name?: string; version?: string};
      if (pkg.name === 'arbor' && typeof pkg.version === 'string') return (cached = pkg.version);
    } catch {
      // try the next place
    }
  }
  return (cached = 'unknown');
}
