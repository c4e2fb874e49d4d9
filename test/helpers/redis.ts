/** A real Redis for queue tests: Debian's redis-server on a free loopback port, nothing saved, stopped afterwards. */
import {spawn, type ChildProcess} from 'node:child_process';
import {createServer} from 'node:net';

/** A running redis-server. */
export interface TestRedis {
  port: number;
  url: string;
  stop(): Promise<void>;
}

/** A TCP port nobody listens on right now (the kernel's choice, released at once). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const {port} = server.address() as {port: number};
      server.close(() => resolve(port));
    });
  });
}

/** Start redis-server and wait until it accepts connections (fails the test when it is not installed). */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  const server: ChildProcess = spawn('redis-server', ['--port', String(port), '--save', '', '--appendonly', 'no', '--bind', '127.0.0.1'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`redis-server did not start within 10 s:\n${output}`)), 10_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    };
    server.stdout!.on('data', onData);
    server.stderr!.on('data', onData);
    server.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot start redis-server (install it: apt-get install -y redis-server): ${error.message}`));
    });
    server.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with code ${code}:\n${output}`));
    });
  });
  server.stdout!.resume();
  server.stderr!.resume();
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (server.exitCode !== null) return resolve();
        server.once('exit', () => resolve());
        server.kill('SIGTERM');
      }),
  };
}
