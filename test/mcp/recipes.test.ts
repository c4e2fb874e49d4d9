/**
 * The client recipes of the README and docs/agents.md (`<!-- recipe: NAME -->`
 * blocks; one that is in both is the same in both), run as written: the zoo path, arbor's path, the port and the
 * token filled in. The `mcpServers` block and the Claude Code lines start the
 * server they name (the `claude` binary is not here: its server command,
 * environment, URL and header are what is run); the Inspector lines run the
 * Inspector itself; the SDK client runs as a script.
 */
import {type ChildProcess, spawn, spawnSync} from 'node:child_process';
import {mkdirSync, readFileSync} from 'node:fs';
import path from 'node:path';
import {Client} from '@modelcontextprotocol/sdk/client/index.js';
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js';
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {afterAll, beforeAll, describe, expect, it} from 'vitest';
import {repoRoot} from '../helpers/cli.js';
import {runsSettled, salt, zooCopy} from './helpers.js';

const docs = ['README.md', 'docs/agents.md'].map((file) => readFileSync(path.join(repoRoot, file), 'utf8')).join('\n');

/** The fenced block after `<!-- recipe: name -->` (every copy of it the same). */
function recipe(name: string): string {
  const found = [...docs.matchAll(new RegExp(`<!-- recipe: ${name} -->\\n\`\`\`\\w*\\n([\\s\\S]*?)\\n\`\`\``, 'g'))].map((match) => match[1]!);
  if (found.length === 0) throw new Error(`neither README.md nor docs/agents.md has the recipe ${name}`);
  expect(new Set(found).size, `the copies of the recipe ${name} differ`).toBe(1);
  return found[0]!;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("the README's MCP client recipes", () => {
  let zoo: string;
  let root: string;
  let remove = () => {};
  let home: string;
  let server: ChildProcess | undefined;
  let port = 0;
  const token = 'recipe-test-token';
  /** A recipe's text with this test's paths, port and token. */
  const filled = (text: string) =>
    text.replaceAll('/path/to/arbor', repoRoot).replaceAll('/path/to/zoo', zoo).replaceAll('8765', String(port)).replaceAll('$ARBOR_MCP_TOKEN', token);

  beforeAll(async () => {
    ({zoo, root, remove} = zooCopy([], ['relu_poly']));
    mkdirSync((home = path.join(root, 'home')));
    // The HTTP recipes' server, as the README starts it.
    server = spawn(process.execPath, [path.join(repoRoot, 'dist/cli/index.js'), 'mcp', zoo, '--http', '0'], {
      env: {...process.env, ARBOR_MCP_TOKEN: token, ARBOR_TEST_SALT: salt, HOME: home},
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    server.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    for (let tries = 0; tries < 100 && !/ at http:\/\/127\.0\.0\.1:(\d+)\/mcp/.test(stderr); tries++) await sleep(100);
    port = Number(/ at http:\/\/127\.0\.0\.1:(\d+)\/mcp/.exec(stderr)![1]);
  });
  afterAll(async () => {
    server?.kill('SIGTERM');
    if (server) await new Promise((resolve) => server!.once('close', resolve));
    await runsSettled(zoo);
    remove();
  });

  /** A stdio server started as a client would start it (from a folder of its own); its list_benchmarks and stderr. */
  async function listOver(command: string, args: string[], env: Record<string, string>) {
    const transport = new StdioClientTransport({
      command,
      args,
      env: {...(process.env as Record<string, string>), HOME: home, ...env},
      cwd: home,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const client = new Client({name: 'recipe-client', version: '1.0.0'});
    await client.connect(transport);
    try {
      const listed = await client.callTool({name: 'list_benchmarks', arguments: {}});
      return {names: (listed.structuredContent as {benchmarks: Array<{name: string}>}).benchmarks.map((row) => row.name), stderr};
    } finally {
      await client.close();
    }
  }

  it('the mcpServers block starts a working server from any folder', {timeout: 60_000}, async () => {
    const block = JSON.parse(filled(recipe('mcp-servers'))) as {mcpServers: {arbor: {command: string; args: string[]; env: Record<string, string>}}};
    const {command, args, env} = block.mcpServers.arbor;
    const listed = await listOver(command, args, env);
    expect(listed.names).toEqual(['relu_poly']);
    expect(listed.stderr).toContain('arbor mcp: test salt from ARBOR_TEST_SALT');
  });

  it('claude mcp add: the server command after -- with its -e variables; over HTTP its URL and header', {timeout: 60_000}, async () => {
    const words = filled(recipe('claude-code')).split(/\s+/);
    expect(words.slice(0, 4)).toEqual(['claude', 'mcp', 'add', 'arbor']);
    const env = Object.fromEntries(words.flatMap((word, i) => (words[i - 1] === '-e' ? [word.split('=')] : [])));
    const command = words.slice(words.indexOf('--') + 1);
    expect(env).toEqual({ARBOR_TEST_SALT: 'change-me'});
    expect((await listOver(command[0]!, command.slice(1), env)).names).toEqual(['relu_poly']);

    const http = /^claude mcp add --transport http arbor (\S+) --header "([^"]+)"$/.exec(filled(recipe('claude-code-http')));
    expect(http).not.toBeNull();
    const [name, value] = http![2]!.split(/:\s*/);
    const client = new Client({name: 'recipe-client', version: '1.0.0'});
    await client.connect(new StreamableHTTPClientTransport(new URL(http![1]!), {requestInit: {headers: {[name!]: value!}}}));
    expect((await client.listTools()).tools).toHaveLength(8);
    await client.close();
  });

  it('the Inspector CLI lines run as written, over stdio and over HTTP with the token', {timeout: 120_000}, () => {
    const run = (name: string) =>
      spawnSync('bash', ['-c', filled(recipe(name))], {cwd: repoRoot, encoding: 'utf8', env: {...process.env, HOME: home}, timeout: 100_000});
    const stdio = run('inspector-stdio');
    expect(stdio.status, stdio.stderr).toBe(0);
    expect(JSON.parse(stdio.stdout).structuredContent).toMatchObject({name: 'relu_poly', solution: expect.stringMatching(/\/relu_poly-\d+\/solution\.py$/)});
    const http = run('inspector-http');
    expect(http.status, http.stderr).toBe(0);
    expect(JSON.parse(http.stdout).structuredContent.benchmarks[0].name).toBe('relu_poly');
  });

  it('the SDK client script checks out, evaluates as a task and prints the score', {timeout: 180_000}, () => {
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', filled(recipe('sdk-client'))], {
      cwd: repoRoot,
      encoding: 'utf8',
      env: {...process.env, HOME: home},
      timeout: 170_000,
    });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^task run-[A-Za-z0-9_-]{22}\nscore 0\.\d+\n$/);
  });
});
