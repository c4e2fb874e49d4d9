import {describe, expect, it} from 'vitest';
import {runCli} from './helpers/cli.js';

describe('arbor (top level)', () => {
  it('prints help with exit 0', () => {
    const result = runCli(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('arbor benchmark');
    expect(result.stdout).toContain('arbor bundle');
    expect(result.stderr).toBe('');
  });

  it('rejects a missing command with exit 2 and one line on stderr', () => {
    const result = runCli([]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^arbor: Missing command/);
  });

  it('suggests the nearest command for a typo', () => {
    const result = runCli(['benchmark', 'lst']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('list');
  });
});
