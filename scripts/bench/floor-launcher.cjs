// The floor of the launcher row: what the launcher's contract itself makes every start pay — the
// sha256 of every file manifest.json lists, an lstat of every entry of the Qwen package beside the
// pinned cli.js, the two terminal checks — then execve of the pinned node, with nothing else: no
// schemas, no StrictModes chains, no environment, repository guard or per-user files.
// `launcher − floor` is the cost of our own code; the floor itself is the contract's.
// Plain CommonJS on purpose (no bundle, no build): `node floor-launcher.cjs <installDir> <qwenCli>`,
// under a pseudo-terminal, on a Node with process.execve (≥ 22.15).
'use strict';
const fs = require('node:fs');
const { createHash } = require('node:crypto');
const tty = require('node:tty');

const [installDir, qwenCli] = process.argv.slice(2);
const manifest = JSON.parse(fs.readFileSync(`${installDir}/manifest.json`, 'utf8'));
for (const [rel, entry] of Object.entries(manifest.files)) {
  const sum = createHash('sha256')
    .update(fs.readFileSync(`${installDir}/${rel}`))
    .digest('hex');
  if (sum !== entry.sha256) throw new Error(`${rel} does not match manifest.json`);
}
let writable = 0;
const stack = [qwenCli.slice(0, qwenCli.lastIndexOf('/'))];
while (stack.length > 0) {
  const entry = stack.pop();
  const stat = fs.lstatSync(entry);
  if ((stat.mode & 0o022) !== 0) writable++;
  if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) stack.push(`${entry}/${name}`);
}
if (writable > 0) throw new Error(`${writable} entries of the Qwen package are writable by group or others`);
if (!tty.isatty(0) || !tty.isatty(1)) throw new Error('not a terminal');
process.execve(process.execPath, [process.execPath, qwenCli], { PATH: '/usr/bin:/bin' });
