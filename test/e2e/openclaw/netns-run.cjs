// Runs inside `unshare -rn` (a network namespace with nothing but its own loopback): brings `lo` up,
// listens on 127.0.0.1:<port> for each forward and pipes every connection to the Unix socket the
// test serves for that port (path sockets cross network namespaces), then runs the command with
// stdio inherited and exits with its status. Whatever else the command dials has no route.
//   QM_FORWARDS='[[port, "/path/to.sock"], …]' node netns-run.cjs <cwd> <command> [args…]
'use strict';
const { spawn, spawnSync } = require('node:child_process');
const net = require('node:net');

const up = spawnSync('ip', ['link', 'set', 'lo', 'up'], { stdio: 'inherit' });
if (up.status !== 0) process.exit(97);
const forwards = JSON.parse(process.env.QM_FORWARDS ?? '[]');
const [cwd, command, ...args] = process.argv.slice(2);
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
  const env = { ...process.env };
  delete env.QM_FORWARDS;
  const child = spawn(command, args, { cwd, env, stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    for (const server of servers) server.close();
    process.exit(code ?? (signal === null ? 1 : 128));
  });
}
