#!/usr/bin/env node
// Prints the SHA-256 compression function that lib/bundle/sha256.ts embeds between its
// `BEGIN GENERATED` and `END GENERATED` lines. Run from the repo root, then format:
//   node lib/bundle/tools/gen-sha256-rounds.mjs --write && npx biome format --write lib/bundle/sha256.ts
// The 64 rounds run as a loop over 8 rounds unrolled with rotating variable names: after 8
// rounds every name is back in its place, so no round moves a..h along (the textbook loop's
// eight moves per round made it about twice as slow in V8), and the function stays short.
import {readFileSync, writeFileSync} from 'node:fs';

const v = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'];
const lines = [];
lines.push('/** Compress one 64-byte block (big-endian words in w[0..15]) into state s. Generated: see tools/gen-sha256-rounds.mjs. */');
lines.push('function compress(s: Int32Array, w: Int32Array): void {');
lines.push('  const m = schedule;');
lines.push('  // Each round adds K[j] + m[j]: km holds the sums, one load a round instead of two.');
lines.push('  const km = scheduleK;');
lines.push('  for (let j = 0; j < 16; j++) {');
lines.push('    m[j] = w[j]! | 0;');
lines.push('    km[j] = (K[j]! + m[j]!) | 0;');
lines.push('  }');
lines.push('  // m[j] = sigma1(m[j-2]) + m[j-7] + sigma0(m[j-15]) + m[j-16]');
lines.push('  for (let j = 16; j < 64; j++) {');
lines.push('    const x = m[j - 15]!, y = m[j - 2]!;');
lines.push(
  '    m[j] = (m[j - 16]! + (((x >>> 7) | (x << 25)) ^ ((x >>> 18) | (x << 14)) ^ (x >>> 3)) + m[j - 7]! + (((y >>> 17) | (y << 15)) ^ ((y >>> 19) | (y << 13)) ^ (y >>> 10))) | 0;',
);
lines.push('    km[j] = (K[j]! + m[j]!) | 0;');
lines.push('  }');
lines.push(`  let ${v.map((name, k) => `${name} = s[${k}]! | 0`).join(', ')};`);
lines.push('  let t1 = 0, t2 = 0;');
lines.push('  for (let j = 0; j < 64; j += 8) {');
for (let r = 0; r < 8; r++) {
  const at = (k) => v[(((k - r) % 8) + 8) % 8];
  const [A, B, C, D, E, F, G, H] = [0, 1, 2, 3, 4, 5, 6, 7].map(at);
  const j = r === 0 ? 'j' : `j + ${r}`;
  lines.push(
    `    t1 = (${H} + (((${E} >>> 6) | (${E} << 26)) ^ ((${E} >>> 11) | (${E} << 21)) ^ ((${E} >>> 25) | (${E} << 7))) + ((${E} & ${F}) ^ (~${E} & ${G})) + km[${j}]!) | 0;`,
  );
  lines.push(
    `    t2 = ((((${A} >>> 2) | (${A} << 30)) ^ ((${A} >>> 13) | (${A} << 19)) ^ ((${A} >>> 22) | (${A} << 10))) + ((${A} & ${B}) ^ (${A} & ${C}) ^ (${B} & ${C}))) | 0;`,
  );
  lines.push(`    ${D} = (${D} + t1) | 0; ${H} = (t1 + t2) | 0;`);
}
lines.push('  }');
lines.push(`  ${v.map((name, k) => `s[${k}] = (s[${k}]! + ${name}) | 0;`).join(' ')}`);
lines.push('}');
const code = lines.join('\n');
if (process.argv.includes('--write')) {
  const file = new URL('../sha256.ts', import.meta.url);
  const text = readFileSync(file, 'utf8');
  const begin = '// BEGIN GENERATED\n';
  const end = '// END GENERATED\n';
  const a = text.indexOf(begin);
  const b = text.indexOf(end);
  if (a < 0 || b < 0) throw new Error('sha256.ts lacks the GENERATED markers');
  writeFileSync(file, text.slice(0, a + begin.length) + code + '\n' + text.slice(b));
} else {
  process.stdout.write(code + '\n');
}
