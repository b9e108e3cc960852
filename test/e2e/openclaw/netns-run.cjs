// Runs inside `unshare -rn` (a network namespace with nothing but its own loopback): brings `lo` up,
// listens on 127.0.0.1:<port> for each forward and pipes every connection to the Unix socket the
// test serves for that port (path sockets cross network namespaces), then runs the command with
// stdio inherited and exits with its status. Whatever else the command dials has no route.
//   QM_FORWARDS='[[port, "/path/to.sock"], …]' node netns-run.cjs <cwd> <command> [args…]
// With QM_RUN_AS='<uid>:<gid>' (under `unshare -n` as the real root) the command runs as that user,
// and the terminal on stdin becomes theirs first, as a login gives a developer their terminal:
// the managed OpenClaw session reopens it as /dev/stdin. With QM_CALLER_ENV (a JSON object) the
// command gets exactly that environment, which this Node never reads (a NODE_OPTIONS in it is the
// command's to face). With QM_BLACK_HOLE_DNS='<address>' it also reads DNS queries on <address>:53
// and answers none (the caller's resolv.conf names it), for as long as the command runs.
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');

const up = spawnSync('ip', ['link', 'set', 'lo', 'up'], { stdio: 'inherit' });
if (up.status !== 0) process.exit(97);
const forwards = JSON.parse(process.env.QM_FORWARDS ?? '[]');
const runAs = process.env.QM_RUN_AS?.split(':').map(Number);
const [cwd, command, ...args] = process.argv.slice(2);
if (process.env.QM_BLACK_HOLE_DNS !== undefined) {
  // An address that is not 127.0.0.1: with loopback only, getaddrinfo's AI_ADDRCONFIG (Node's
  // default for connections) answers at once without asking any resolver.
  if (spawnSync('ip', ['addr', 'add', '10.53.0.1/32', 'dev', 'lo'], { stdio: 'inherit' }).status !== 0)
    process.exit(97);
  const hole = require('node:dgram').createSocket('udp4');
  // One line per query, so the caller sees the lookup was asked.
  hole.on('message', () => fs.appendFileSync(process.env.QM_BLACK_HOLE_LOG, `${Date.now()}\n`));
  hole.bind(53, process.env.QM_BLACK_HOLE_DNS);
}
const servers = forwards.map(([, socket]) =>
  net.createServer((inside) => {
    const outside = net.connect(socket);
    inside.pipe(outside).pipe(inside);
    inside.on('error', () => outside.destroy());
    outside.on('error', () => inside.destroy());
  }),
);
let listening = 0;
for (const [i, server] of servers.entries()) {
  server.listen(forwards[i][0], '127.0.0.1', () => {
    if (++listening === servers.length) start();
  });
}
if (servers.length === 0) start();

function start() {
  const env =
    process.env.QM_CALLER_ENV === undefined ? { ...process.env } : JSON.parse(process.env.QM_CALLER_ENV);
  delete env.QM_FORWARDS;
  delete env.QM_RUN_AS;
  delete env.QM_CALLER_ENV;
  delete env.QM_BLACK_HOLE_DNS;
  delete env.QM_BLACK_HOLE_LOG;
  const as = {};
  if (runAs !== undefined) {
    fs.chownSync(fs.readlinkSync('/proc/self/fd/0'), runAs[0], -1);
    Object.assign(as, { uid: runAs[0], gid: runAs[1] });
  }
  const child = spawn(command, args, { cwd, env, stdio: 'inherit', ...as });
  child.on('exit', (code, signal) => {
    for (const server of servers) server.close();
    process.exit(code ?? (signal === null ? 1 : 128));
  });
}
