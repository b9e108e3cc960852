// The floor of the search figures: the least a Node hook can do for the same prompt — read the
// event, one HTTP/1.0 POST (no chunked answer to decode) over node:net to the same loopback
// provider, print an answer — with no config, no checks, no sanitizer, no budget. `ours − floor` is
// the cost of our own code; the floor itself is Node's (its socket stack, its resolver).
// Plain CommonJS on purpose (no bundle, no build): run as `node floor-hook.cjs`, FLOOR_URL=<provider>.
'use strict';
const fs = require('node:fs');
const net = require('node:net');

const event = JSON.parse(fs.readFileSync(0, 'utf8'));
const url = new URL(process.env.FLOOR_URL);
const body = JSON.stringify({ query: event.prompt, limit: 5 });
const socket = net.connect({ host: url.hostname, port: Number(url.port) });
const chunks = [];
socket.on('connect', () =>
  socket.end(
    `POST ${url.pathname.replace(/\/$/, '')}/search HTTP/1.0\r\nhost: ${url.host}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  ),
);
socket.on('data', (chunk) => chunks.push(chunk));
socket.on('end', () => {
  const text = Buffer.concat(chunks).toString('utf8');
  const items = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)).items;
  const context = items.map((item) => item.content).join('\n');
  fs.writeSync(1, JSON.stringify({ hookSpecificOutput: { additionalContext: context } }));
});
