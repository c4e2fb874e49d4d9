import {readFileSync} from 'node:fs';
import path from 'node:path';
import {describe, expect, it} from 'vitest';
import {fixtures, runCli} from '../helpers/cli.js';

const dir = path.join(fixtures, 'gate');
// The rows of test/fixtures/gate/README.md: name, --spec, --cases, --results, --candidate.
const rows = readFileSync(path.join(dir, 'README.md'), 'utf8')
  .split('\n')
  .filter((line) => /^\| [a-z_]+ \| /.test(line) && !line.startsWith('| NAME'))
  .map(
    (line) =>
      line
        .split('|')
        .slice(1, 6)
        .map((cell) => cell.trim()) as [string, string, string, string, string],
  );

describe('arbor benchmark gate on the reference fixtures', () => {
  it('has the fixture table', () => expect(rows.length).toBe(13));
  for (const [name, spec, cases, results, candidate] of rows) {
    it(`${name}: same stdout, stderr and exit code as the golden output`, () => {
      const result = runCli(['benchmark', 'gate', '--spec', spec, '--cases', cases, '--results', results, '--candidate', candidate], {cwd: dir});
      expect(result.stdout).toBe(readFileSync(path.join(dir, `expected/${name}.stdout`), 'utf8'));
      expect(result.stderr).toBe(readFileSync(path.join(dir, `expected/${name}.stderr`), 'utf8'));
      expect(result.code).toBe(Number(readFileSync(path.join(dir, `expected/${name}.rc`), 'utf8')));
    });
  }
  it('uses the default files of the working directory', () => {
    const result = runCli(['benchmark', 'gate'], {cwd: dir});
    expect(result.stdout).toBe(readFileSync(path.join(dir, 'expected/pass.stdout'), 'utf8'));
    expect(result.code).toBe(0);
  });
  it('names a missing file as Python does', () => {
    const result = runCli(['benchmark', 'gate', '--spec', './/nope.json'], {cwd: dir});
    expect(result.stderr).toBe("ERROR: [Errno 2] No such file or directory: 'nope.json'\n");
    expect(result.code).toBe(2);
  });
});
