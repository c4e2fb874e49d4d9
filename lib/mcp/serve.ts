/**
 * The transports of `arbor mcp`: stdio (one client, the process's stdin and
 * stdout), or Streamable HTTP on 127.0.0.1 behind a bearer token (one
 * McpServer per session, every session over the same zoo, workspaces and
 * runs). Runs outlive the server either way: their processes are detached
 * and their state is in the zoo's MCP store (jobs.ts).
 */
import {randomBytes, randomUUID, timingSafeEqual} from 'node:crypto';
import http from 'node:http';
import type {AddressInfo} from 'node:net';
import {StdioServerTransport} from '@modelcontextprotocol/sdk/server/stdio.js';
import {StreamableHTTPServerTransport} from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {isInitializeRequest} from '@modelcontextprotocol/sdk/types.js';
import {createServer, type ServerContext} from './server.js';

/** Serve on stdio until the client closes it; runs under way go on (a later server answers for them). */
export async function serveStdio(ctx: ServerContext): Promise<void> {
  const server = createServer(ctx);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  process.stdin.on('end', () => void server.close());
  await server.connect(transport);
  await closed;
  // The store stays open to the process's end: a queued submit_test (--sealed-queue) still stores how it ended.
  ctx.sealedQueue?.close();
}

/** A token for `--http` when ARBOR_MCP_TOKEN sets none. */
export function generatedToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Whether a request carries `Authorization: Bearer <token>`. */
function authorized(request: http.IncomingMessage, token: string): boolean {
  const given = Buffer.from(request.headers.authorization ?? '');
  const wanted = Buffer.from(`Bearer ${token}`);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

async function readJson(request: http.IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

function reply(response: http.ServerResponse, status: number, message: string): void {
  response.writeHead(status, {'content-type': 'application/json'}).end(JSON.stringify({jsonrpc: '2.0', error: {code: -32000, message}, id: null}));
}

/** Serve Streamable HTTP at http://127.0.0.1:<port>/mcp; resolves once listening, with the URL and a close function. */
export async function serveHttp(ctx: ServerContext, options: {port: number; token: string}): Promise<{url: string; close: () => Promise<void>}> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const handle = async (request: http.IncomingMessage, response: http.ServerResponse) => {
    if (!authorized(request, options.token)) return reply(response, 401, 'missing or wrong bearer token: send Authorization: Bearer $ARBOR_MCP_TOKEN');
    if (new URL(request.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') return reply(response, 404, 'not found: the MCP endpoint is /mcp');
    const body = request.method === 'POST' ? await readJson(request).catch(() => null) : undefined;
    if (body === null) return reply(response, 400, 'the request body is not JSON');
    const id = request.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      if (typeof id === 'string' || !isInitializeRequest(body)) return reply(response, 400, 'no such session: start one with an initialize request');
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (session) => void sessions.set(session, created),
      });
      created.onclose = () => created.sessionId && sessions.delete(created.sessionId);
      await createServer(ctx).connect(created);
      transport = created;
    }
    await transport.handleRequest(request, response, body);
  };
  const server = http.createServer((request, response) => {
    handle(request, response).catch((error: Error) => (response.headersSent ? response.end() : reply(response, 500, error.message)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', resolve);
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  const close = async () => {
    ctx.sealedQueue?.close();
    for (const transport of sessions.values()) await transport.close().catch(() => {});
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return {url, close};
}
