/**
 * The documentation holds together: every relative link of the README, docs/
 * and the folders' READMEs leads to a file that exists and, with a #fragment,
 * to a heading of it (GitHub's anchors); every lib/ folder's README has one
 * skeleton (title, file table naming each source file); the README stays a
 * guide of at most 300 lines, the reference living in docs/.
 */
import {existsSync, readdirSync, readFileSync, statSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {repoRoot} from './helpers/cli.js';

/** The Markdown files checked: the README, docs/, and every README under lib/. */
function documents(): string[] {
  const found = ['README.md', ...readdirSync(path.join(repoRoot, 'docs')).map((name) => `docs/${name}`)];
  for (const folder of readdirSync(path.join(repoRoot, 'lib')))
    if (existsSync(path.join(repoRoot, 'lib', folder, 'README.md'))) found.push(`lib/${folder}/README.md`);
  return found.filter((file) => file.endsWith('.md')).sort();
}

/** The lines of a Markdown text outside fenced code blocks, with their numbers. */
function prose(text: string): Array<[number, string]> {
  let fenced = false;
  const kept: Array<[number, string]> = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (!fenced) kept.push([index + 1, line]);
  }
  return kept;
}

/** GitHub's anchor of a heading: its text, lower case, without punctuation but hyphens, spaces as hyphens. */
export function slug(heading: string): string {
  const text = heading
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_]{1,2}([^*_]+)[*_]{1,2}/g, '$1');
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown file's headings (a repeated one gets -1, -2, as GitHub numbers them). */
function anchors(file: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, line] of prose(readFileSync(file, 'utf8'))) {
    const heading = /^#{1,6} (.+?)\s*#*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

describe('the documentation', () => {
  it('computes anchors as GitHub does', () => {
    expect(slug('`arbor benchmark verify <dir>... [--probe]`')).toBe('arbor-benchmark-verify-dir---probe');
    expect(slug('Agents: `arbor mcp`')).toBe('agents-arbor-mcp');
    expect(slug('5. README and PROVENANCE')).toBe('5-readme-and-provenance');
  });

  it('has every relative link lead to a file, and every #fragment to a heading of it', () => {
    const broken: string[] = [];
    for (const doc of documents()) {
      const text = readFileSync(path.join(repoRoot, doc), 'utf8');
      for (const [line, content] of prose(text)) {
        for (const match of content.matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)) {
          const target = match[1]!;
          if (/^(https?:|mailto:)/.test(target)) continue;
          const [file, fragment] = target.split('#') as [string, string | undefined];
          const resolved = file === '' ? path.join(repoRoot, doc) : path.resolve(repoRoot, path.dirname(doc), file);
          if (!existsSync(resolved)) {
            broken.push(`${doc}:${line}: ${target}: no such file`);
            continue;
          }
          if (fragment !== undefined && statSync(resolved).isFile() && resolved.endsWith('.md') && !anchors(resolved).has(fragment)) {
            broken.push(`${doc}:${line}: ${target}: no heading #${fragment} in ${path.relative(repoRoot, resolved)}`);
          }
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('gives every folder of lib/ a README of one skeleton: "# lib/<name>: what it is", and a file table naming each of its source files', () => {
    const problems: string[] = [];
    for (const folder of readdirSync(path.join(repoRoot, 'lib')).filter((name) => statSync(path.join(repoRoot, 'lib', name)).isDirectory())) {
      const file = path.join(repoRoot, 'lib', folder, 'README.md');
      if (!existsSync(file)) {
        problems.push(`lib/${folder}: no README.md`);
        continue;
      }
      const text = readFileSync(file, 'utf8');
      if (!text.startsWith(`# lib/${folder}: `)) problems.push(`lib/${folder}/README.md: the title is not "# lib/${folder}: …"`);
      const table = /^\| file \| what it holds \|\n\|[- |]+\|\n((?:\|.*\n)+)/m.exec(text)?.[1];
      if (table === undefined) {
        problems.push(`lib/${folder}/README.md: no "| file | what it holds |" table`);
        continue;
      }
      for (const source of readdirSync(path.join(repoRoot, 'lib', folder)).filter((name) => /\.(ts|py|mjs)$/.test(name) && !name.endsWith('.d.ts'))) {
        if (!table.includes(`\`${source}\``)) problems.push(`lib/${folder}/README.md: the file table does not name ${source}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('keeps the README a guide of at most 300 lines', () => {
    expect(readFileSync(path.join(repoRoot, 'README.md'), 'utf8').split('\n').length).toBeLessThanOrEqual(300);
  });
});
