/**
 * AlgoTune's presets, read from the checkout being imported. AlgoTune defines its "AlgoTune Lite"
 * preset in `aws/launch-batch.sh` (`PRESET_TASKS_NAME="AlgoTune Lite"` and a bash array
 * `PRESET_TASKS=( ... )`), not in a data file; arbor reads that text and never runs it: the script
 * belongs to the checkout, which is untrusted like the tasks it holds. A list kept in arbor would go
 * stale as AlgoTune changes its preset, and an old commit's import should get that commit's preset.
 */
import {existsSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {UsageError} from '../errors.js';

/** The presets `--preset` takes, with the name AlgoTune gives each. */
const presets = {lite: 'AlgoTune Lite'} as const;
export type Preset = keyof typeof presets;

/** Where a checkout defines its presets, relative to its root. */
export const presetFile = path.join('aws', 'launch-batch.sh');

/** The tasks of `preset` as the checkout at `root` defines them, in its order; a one-line UsageError where it does not. */
export function presetTasks(root: string, preset: Preset): string[] {
  const file = path.join(root, presetFile);
  const want = presets[preset];
  const missing = (why: string) =>
    new UsageError(
      `--preset ${preset}: ${file} ${why}; give an AlgoTune checkout that defines ${want} (github.com/oripress/AlgoTune has it since 3c0d82a, 2026-03-11), or name tasks with --task`,
      'no-preset',
    );
  if (!existsSync(file)) throw missing('not found (AlgoTune defines its presets there)');
  const text = readFileSync(file, 'utf8');
  const name = /^\s*PRESET_TASKS_NAME=(["']?)([^"'\n]*)\1\s*$/m.exec(text)?.[2];
  if (name !== want) throw missing(name === undefined ? 'sets no PRESET_TASKS_NAME' : `defines the preset "${name}", not "${want}"`);
  const words = listWords(text);
  if (words === undefined) throw missing('has no PRESET_TASKS=( ... ) list');
  const bad = words.filter((word) => !/^[A-Za-z0-9_]+$/.test(word));
  if (bad.length) throw missing(`lists ${bad.map((word) => JSON.stringify(word)).join(', ')} in PRESET_TASKS, not a task name`);
  if (words.length === 0) throw missing('lists no task in PRESET_TASKS');
  return [...new Set(words)];
}

/**
 * The words of the bash array `PRESET_TASKS=( ... )`, comments dropped first (so a `)` in a comment
 * cannot end the list early and drop tasks unseen), quotes around a word removed; undefined without one.
 */
function listWords(text: string): string[] | undefined {
  const lines = text.split('\n').map((line) => line.replace(/(^|\s)#.*$/, ''));
  const start = lines.findIndex((line) => /^\s*PRESET_TASKS=\(/.test(line));
  if (start < 0) return undefined;
  let body = '';
  for (const line of [lines[start]!.replace(/^\s*PRESET_TASKS=\(/, ''), ...lines.slice(start + 1)]) {
    const end = line.indexOf(')');
    body += ` ${end < 0 ? line : line.slice(0, end)}`;
    if (end >= 0) {
      return body
        .split(/\s+/)
        .filter(Boolean)
        .map((word) => word.replace(/^(["'])(.*)\1$/, '$2'));
    }
  }
  return undefined;
}
