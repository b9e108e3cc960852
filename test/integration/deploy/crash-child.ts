// Child process of crash.test.ts: applies render B (runtimes of argv[5], large or small) over the
// tree at argv[2], printing every writer event. With `pause N`, it blocks at event N (so the parent can SIGKILL it exactly before that step);
// with `run`, it writes at full speed (the parent kills it at a random moment, mid-write of big files).
import { writeSync } from 'node:fs';
import { writeInstall } from '../../../src/deploy/render/writer.js';
import { loadInstallTree, previousInstallOf } from '../../../src/deploy/tree.js';
import { type RuntimeSize, renderB } from './crash-fixture.js';

const [dir, mode, at, size] = process.argv.slice(2) as [string, 'pause' | 'run', string, RuntimeSize];
const pauseAt = mode === 'pause' ? Number(at) : -1;
const rendered = await renderB(size, previousInstallOf(await loadInstallTree(dir)));
const blocker = new Int32Array(new SharedArrayBuffer(4));
let index = 0;
// Synchronous writes: the pause below blocks the event loop, so an async write would never flush.
writeSync(1, 'ready\n');
await writeInstall(dir, rendered, {
  now: '2026-12-01T00:00:00.000Z',
  onEvent: (event) => {
    writeSync(1, `event ${index} ${event.step} ${event.path}\n`);
    if (index === pauseAt) Atomics.wait(blocker, 0, 0, 30_000);
    index++;
  },
});
writeSync(1, 'done\n');
