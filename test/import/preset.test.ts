// `arbor benchmark import algotune --preset lite`: the preset's tasks as the checkout defines them (its
// aws/launch-batch.sh, read and never run), with --task as a union, and one line with exit 2 where the
// checkout defines no such preset.
import {cpSync, existsSync, mkdirSync, writeFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {fixtures, runCli, tempDir} from '../helpers/cli.js';

const source = path.join(fixtures, 'algotune');

interface Summary {
  counts: Record<string, number>;
  tasks: {task: string; status: string}[];
}

function importJson(from: string, zoo: string, ...flags: string[]) {
  const result = runCli(['benchmark', 'import', 'algotune', from, zoo, '--target-ms', '1', '--json', ...flags]);
  if (result.code !== 0) throw new Error(`import exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as Summary;
}

/** A checkout holding the fixture's tasks and license, with `launcher` as its aws/launch-batch.sh (none when undefined). */
function checkout(launcher?: string): string {
  const dir = path.join(tempDir('arbor-preset-'), 'AlgoTune');
  cpSync(path.join(source, 'AlgoTuneTasks'), path.join(dir, 'AlgoTuneTasks'), {recursive: true});
  cpSync(path.join(source, 'LICENSE'), path.join(dir, 'LICENSE'));
  if (launcher !== undefined) {
    mkdirSync(path.join(dir, 'aws'));
    writeFileSync(path.join(dir, 'aws/launch-batch.sh'), launcher);
  }
  return dir;
}

/** The refusal of `--preset lite` on `from`: exit 2, one line, nothing imported. */
function refusal(from: string) {
  const zoo = path.join(tempDir('arbor-preset-zoo-'), 'zoo');
  const result = runCli(['benchmark', 'import', 'algotune', from, zoo, '--preset', 'lite']);
  expect(result.code).toBe(2);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(existsSync(path.join(zoo, 'algotune_matvec'))).toBe(false);
  return result.stderr.trim();
}

describe('import algotune --preset lite', () => {
  it("imports exactly the preset's tasks as the checkout lists them, and with --task the union", () => {
    const zoo = path.join(tempDir('arbor-preset-zoo-'), 'zoo');
    const lite = importJson(source, zoo, '--preset', 'lite');
    expect(lite.tasks.map((t) => [t.task, t.status])).toEqual([
      ['matvec', 'imported'],
      ['xor_bytes', 'imported'],
    ]);
    // The tasks folder itself as the source: the preset is still read from the checkout around it.
    const again = importJson(path.join(source, 'AlgoTuneTasks'), zoo, '--preset', 'lite', '--task', 'sorted_chunks');
    expect(again.tasks.map((t) => [t.task, t.status])).toEqual([
      ['matvec', 'unchanged'],
      ['sorted_chunks', 'imported'],
      ['xor_bytes', 'unchanged'],
    ]);
    expect(runCli(['benchmark', 'import', '--help']).stdout).toMatch(/--preset.*AlgoTune Lite/s);
  }, 240_000);

  it('refuses with exit 2 and one line naming the file looked for when the checkout defines no Lite preset', () => {
    const none = checkout();
    expect(refusal(none)).toBe(
      `arbor: --preset lite: ${path.join(none, 'aws/launch-batch.sh')} not found (AlgoTune defines its presets there); give an AlgoTune checkout that defines AlgoTune Lite (github.com/oripress/AlgoTune has it since 3c0d82a, 2026-03-11), or name tasks with --task`,
    );
    expect(refusal(checkout('PRESET_TASKS_NAME="AlgoTune Heavy"\nPRESET_TASKS=(matvec)\n'))).toMatch(
      /launch-batch.sh defines the preset "AlgoTune Heavy", not "AlgoTune Lite"; give an AlgoTune checkout/,
    );
    expect(refusal(checkout('PRESET_TASKS_NAME="AlgoTune Lite"\nPRESET_TASKS=(\n  matvec\n  gone_task\n)\n'))).toMatch(
      /launch-batch.sh lists gone_task, not in .*AlgoTuneTasks; check out a commit whose tasks match its preset$/,
    );
  });

  it("never runs the checkout's launcher: a substitution in its list is refused as text, and does nothing", () => {
    const dir = tempDir('arbor-preset-mark-');
    const mark = path.join(dir, 'ran');
    const launcher = `#!/bin/bash\ntouch ${mark}\nPRESET_TASKS_NAME="AlgoTune Lite"\nPRESET_TASKS=(\n  matvec # the first (of two)\n  $(touch ${mark}) xor_bytes\n)\n`;
    expect(refusal(checkout(launcher))).toMatch(/launch-batch.sh lists "\$\(touch", ".*ran" in PRESET_TASKS, not a task name;/);
    expect(existsSync(mark)).toBe(false);
  });
});
