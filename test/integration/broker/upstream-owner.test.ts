// The broker's upstream connections with real sockets and real users: a loopback upstream port is
// whoever listens on it, so a developer who listens on the port of a stopped local provider would
// receive every caller's credential. The owner check (src/broker/upstream-owner.ts) sends nothing
// there; the negative control shows the same request delivering the token without it.
import { type ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Agent, type Dispatcher } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Loopback, listenOnLoopback } from '../../../scripts/shared/loopback.js';
import type { AuditRecord } from '../../../src/broker/audit.js';
import { socketPeerUid, socketPeerUids } from '../../../src/broker/machine.js';
import { createBrokerServer } from '../../../src/broker/server.js';
import { brokerUpstream, UntrustedUpstreamError } from '../../../src/broker/upstream-connector.js';
import { PROVIDER_CALLER_HEADERS } from '../../../src/contracts/broker.js';
import { createThrowawayUser, removeThrowawayUser, type TestUser } from '../../e2e/harness/users.js';
import { requestAs, waitFor } from '../../fixtures/broker.js';

const TOKEN = 'ctx-real-token-owner-4b7e';
const BROKER_UID = 4_000_123;

// A provider stand-in run as the developer: prints its port, then the Authorization of each request
// and, for each connection that closes, how many bytes it had received.
const DEVELOPER_LISTENER = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  process.stdout.write(JSON.stringify({ authorization: req.headers.authorization ?? null }) + '\\n');
  req.resume();
  req.on('end', () => res.end('{"items":[]}'));
});
server.on('connection', (socket) =>
  socket.on('close', () => process.stdout.write(JSON.stringify({ closedAfterBytes: socket.bytesRead }) + '\\n')));
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

let root: string;
let dev: TestUser;
let devListener: ChildProcess;
let devPort: number;
const devSaw: Array<{ authorization?: string | null; closedAfterBytes?: number }> = [];
let rootUpstream: Loopback;

/** The broker's own dispatcher (no proxy variables), owner check included. */
function ownerChecked(): Dispatcher {
  return brokerUpstream({}, undefined, (socket) => ({
    ownerUid: socketPeerUid(socket),
    brokerUid: BROKER_UID,
    unprivilegedPortStart: 1024,
  }));
}

async function search(agent: Dispatcher, port: number): Promise<number> {
  const answer = await agent.request({
    origin: `http://127.0.0.1:${port}`,
    path: '/v1/context/search',
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: '{"query":"deploy","limit":5}',
  });
  await answer.body.dump();
  return answer.statusCode;
}

beforeAll(async () => {
  root = fs.mkdtempSync('/tmp/qme2e-owner-');
  fs.chmodSync(root, 0o755);
  dev = createThrowawayUser(path.join(root, 'home'));
  devListener = spawn(process.execPath, ['-e', DEVELOPER_LISTENER], {
    uid: dev.uid,
    gid: dev.gid,
    cwd: '/',
    env: { PATH: '/usr/bin:/bin' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  devPort = await new Promise<number>((resolve, reject) => {
    let buffered = '';
    devListener.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        if (/^\d+$/.test(line)) resolve(Number(line));
        else devSaw.push(JSON.parse(line));
      }
    });
    devListener.once('exit', (code) => reject(new Error(`developer listener exited ${code}`)));
  });
  rootUpstream = await listenOnLoopback(
    http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.end('{"items":[]}'));
    }),
  );
});

afterAll(async () => {
  devListener?.kill();
  await rootUpstream?.close();
  if (dev) removeThrowawayUser(dev);
  if (root) fs.rmSync(root, { recursive: true, force: true });
});

describe('a loopback upstream held by a developer gets no credential', () => {
  it('negative control: without the check, the developer’s listener receives the real token', async () => {
    const agent = new Agent();
    expect(await search(agent, devPort)).toBe(200);
    await agent.close();
    expect(devSaw).toContainEqual({ authorization: `Bearer ${TOKEN}` });
    // Its connection, closed with the agent, is reported before the next row counts lines.
    await waitFor(() => devSaw.some((line) => (line.closedAfterBytes ?? 0) > 0));
  });

  it('with the check, the connection is closed before the request is written', async () => {
    const seenBefore = devSaw.length;
    const agent = ownerChecked();
    const error = await search(agent, devPort).catch((e: unknown) => e);
    await agent.close();
    expect(error).toBeInstanceOf(UntrustedUpstreamError);
    expect((error as Error).message).toBe(
      `the upstream's loopback port ${devPort} is held by uid ${dev.uid}, not root or the broker's user: no credential is sent there (have the upstream listen on a port below 1024, which only root can bind, or run it as root)`,
    );
    // The developer's listener saw the connection close, and nothing on it.
    await waitFor(() => devSaw.slice(seenBefore).some((line) => line.closedAfterBytes !== undefined));
    expect(devSaw.slice(seenBefore)).toEqual([{ closedAfterBytes: 0 }]);
  });

  it("root's upstream on an unprivileged port is reached as before", async () => {
    const agent = ownerChecked();
    expect(await search(agent, rootUpstream.port)).toBe(200);
    await agent.close();
  });

  it('through the broker: the caller gets 502 upstream_untrusted, audited with the reason', async () => {
    const audit: AuditRecord[] = [];
    const seenBefore = devSaw.length;
    const agent = ownerChecked();
    const broker = createBrokerServer({
      config: {
        version: 1,
        user: 'unused-here',
        allow: { users: [], groups: [] },
        host: '127.0.0.1',
        credentials: { CONTEXT_API_TOKEN: { file: '/unused' } },
        listeners: [
          {
            name: 'auto-recall',
            port: 0,
            upstream: `http://127.0.0.1:${devPort}`,
            credential: 'CONTEXT_API_TOKEN',
            header: { name: 'authorization', prefix: 'Bearer ' },
            timeoutMs: 5000,
            maxBodyBytes: 4096,
            routes: [{ method: 'POST', path: '/v1/context/search' }],
            callerHeaders: [...PROVIDER_CALLER_HEADERS],
          },
        ],
      },
      credentials: new Map([['CONTEXT_API_TOKEN', TOKEN]]),
      peerUids: socketPeerUids,
      // Root (this test) is the caller: admitted, so only the upstream's owner decides.
      admit: () => ({ allowed: true, user: 'root', via: 'root' }),
      upstream: agent,
      audit: (line) => audit.push(JSON.parse(line) as AuditRecord),
      now: () => performance.now(),
      time: () => new Date().toISOString(),
      idle: { headersMs: 10_000, bodyMs: 10_000 },
    });
    await broker.listen();
    try {
      const answer = await requestAs(undefined, broker.ports().get('auto-recall')!, {
        path: '/v1/context/search',
        body: '{"query":"deploy","limit":5}',
      });
      expect(answer.status).toBe(502);
      expect(JSON.parse(answer.body).error.code).toBe('upstream_untrusted');
    } finally {
      await broker.close(0);
      await agent.close();
    }
    expect(audit.at(-1)).toMatchObject({ decision: 'failed', status: 502 });
    expect(audit.at(-1)!.reason).toContain(`held by uid ${dev.uid}`);
    await waitFor(() => devSaw.slice(seenBefore).some((line) => line.closedAfterBytes !== undefined));
    expect(devSaw.slice(seenBefore)).toEqual([{ closedAfterBytes: 0 }]);
  });
});
