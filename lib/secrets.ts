/**
 * The environment variables that hold a secret (the test salt, the queue key
 * and the sealed queue's URL, which may carry a password), and the
 * environment a process that runs bundle or solution code gets: the caller's
 * without them. A module of its own, with no imports, so a command that only
 * starts such a process (verify's determinism makes) loads nothing else.
 */

/** Environment variable holding the test salt. */
export const saltVariable = 'ARBOR_TEST_SALT';
/** The environment variable holding the queue key (hex or any text of 32+ characters). */
export const queueKeyVariable = 'ARBOR_QUEUE_KEY';
/** The environment variable naming a file that holds the key. */
export const queueKeyFileVariable = 'ARBOR_QUEUE_KEY_FILE';
/** The sealed queue's URL for `arbor mcp --sealed-queue` (a password in it stays out of the process list). */
export const sealedQueueVariable = 'ARBOR_SEALED_QUEUE';

/** Variables an eval process never gets. */
export const secretVariables: readonly string[] = [saltVariable, queueKeyVariable, queueKeyFileVariable, sealedQueueVariable];

/** The environment of an eval process: the caller's, without the secrets. */
export function evalEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const copy = {...env};
  for (const name of secretVariables) delete copy[name];
  return copy;
}

/** Whether `env` holds a secret a process running bundle code must not get. */
export function holdsSecret(env: NodeJS.ProcessEnv): boolean {
  return secretVariables.some((name) => env[name] !== undefined && env[name] !== '');
}
