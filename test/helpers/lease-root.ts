// The suite's CPU lease folders (test/helpers/lease-folder.ts) go in one folder made here, once per
// run, and removed with everything in it when the run ends: a run leaves no lease folder in /tmp.
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';

export default function setup(): (() => void) | undefined {
  if (process.env.ARBOR_CPU_LEASES || process.env.ARBOR_TEST_LEASE_ROOT) return undefined;
  const root = mkdtempSync(path.join(tmpdir(), 'arbor-test-leases-'));
  process.env.ARBOR_TEST_LEASE_ROOT = root;
  return () => rmSync(root, {recursive: true, force: true});
}
