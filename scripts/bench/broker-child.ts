// The credential broker for `npm run bench`, in its own process as in a deployment: one provider
// listener in front of the bench's loopback provider, the kernel peer lookup per connection, this
// user allowed. Prints its port, serves until killed. Run with `node --import tsx`.
import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { BROKER_BODY_BYTES, brokerUpstreamTimeoutMs } from '../../src/base/limits.js';
import { admit } from '../../src/broker/allow.js';
import { accountCache, socketPeerUid, socketPeerUids } from '../../src/broker/machine.js';
import { createBrokerServer } from '../../src/broker/server.js';
import { brokerUpstream } from '../../src/broker/upstream-connector.js';
import { PROVIDER_CALLER_HEADERS } from '../../src/contracts/broker.js';

const [upstream, token] = process.argv.slice(2) as [string, string];
const allow = { users: [os.userInfo().username], groups: [] };
const cache = accountCache([], () => performance.now());
const server = createBrokerServer({
  config: {
    version: 1,
    user: 'bench',
    allow,
    host: '127.0.0.1',
    credentials: { CONTEXT_API_TOKEN: { file: '/unused' } },
    listeners: [
      {
        name: 'auto-recall',
        port: 0,
        upstream,
        credential: 'CONTEXT_API_TOKEN',
        header: { name: 'authorization', prefix: 'Bearer ' },
        timeoutMs: brokerUpstreamTimeoutMs(5000),
        maxBodyBytes: BROKER_BODY_BYTES.provider,
        routes: [{ method: 'POST', path: '/v1/context/search' }],
        callerHeaders: [...PROVIDER_CALLER_HEADERS],
      },
    ],
  },
  credentials: new Map([['CONTEXT_API_TOKEN', token]]),
  peerUids: socketPeerUids,
  admit: (uid) => admit(uid, allow, cache.withUid(uid)),
  // As deployed: the same dispatcher, owner check included (no proxy variables here).
  upstream: brokerUpstream({}, undefined, (socket) => ({
    ownerUid: socketPeerUid(socket),
    brokerUid: process.getuid!(),
    unprivilegedPortStart: 1024,
  })),
  // As deployed: one audit line per request on stdout (the bench reads and drops them).
  audit: (line) => process.stdout.write(line),
  now: () => performance.now(),
  time: () => new Date().toISOString(),
  idle: { headersMs: 10_000, bodyMs: 10_000 },
});
await server.listen();
process.stdout.write(`${server.ports().get('auto-recall')}\n`);
