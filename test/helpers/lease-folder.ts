// Evals lease a CPU each, machine-wide (lib/sandbox/cpu-lease.ts). The suite runs three test files at
// once and times nothing it asserts on, so each test file leases in a folder of its own: its evals
// never wait for another file's. test/eval/cpu-lease.test.ts tests the leases themselves.
import {mkdtempSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';

// Inside the run's lease root (test/helpers/lease-root.ts), removed when the run ends.
process.env.ARBOR_CPU_LEASES ||= mkdtempSync(path.join(process.env.ARBOR_TEST_LEASE_ROOT ?? tmpdir(), 'arbor-test-leases-'));
