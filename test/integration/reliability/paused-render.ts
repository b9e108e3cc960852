// Child process of no-data-lost.test.ts: renders DEPLOYMENT over DIR with the same library calls,
// toolkit version and uid as `qwen-managed render`, printing each writer event. At the event named
// by PAUSE (`<step>:<path>`, e.g. `stage:manifest.json`; `none` never pauses) it prints
// `paused <step> <path>` and blocks until the parent writes a line to stdin (or SIGKILLs it), so the
// parent can kill it, or run another program, at an exact point of the write.
// argv: DIR DEPLOYMENT RUNTIME_DIR PAUSE
import * as nodeFs from 'node:fs';
import * as fs from 'node:fs/promises';
import packageJson from '../../../package.json' with { type: 'json' };
import { parseDeploymentText } from '../../../src/deploy/deployment/parse.js';
import { renderInstall } from '../../../src/deploy/render/render.js';
import { loadRuntimeFiles } from '../../../src/deploy/render/runtime-files.js';
import { writeInstall } from '../../../src/deploy/render/writer.js';
import { isDirectory, loadInstallTree, previousInstallOf } from '../../../src/deploy/tree.js';

const [dir, deploymentFile, runtimeDir, pause] = process.argv.slice(2) as [string, string, string, string];

/** Synchronous on purpose: the writer's event callback is synchronous and must hold the write here. */
const say = (line: string) => nodeFs.writeSync(1, `${line}\n`);

function waitForParent(): void {
  const buffer = Buffer.alloc(64);
  for (;;) {
    try {
      nodeFs.readSync(0, buffer, 0, buffer.length, null);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
    }
  }
}

try {
  const parsed = parseDeploymentText(await fs.readFile(deploymentFile, 'utf8'), deploymentFile);
  const tree = (await isDirectory(dir)) ? await loadInstallTree(dir) : undefined;
  const previous = tree === undefined ? undefined : previousInstallOf(tree);
  const now = new Date().toISOString();
  const rendered = renderInstall(parsed, await loadRuntimeFiles(runtimeDir), {
    toolkitVersion: packageJson.version,
    adminUid: typeof process.getuid === 'function' ? process.getuid() : 0,
    now,
    ...(previous === undefined ? {} : { previous }),
  });
  say('ready');
  await writeInstall(dir, rendered, {
    now,
    onEvent: (event) => {
      say(`event ${event.step} ${event.path}`);
      if (`${event.step}:${event.path}` === pause) {
        say(`paused ${event.step} ${event.path}`);
        waitForParent();
      }
    },
  });
  say('done');
} catch (error) {
  say(`error ${(error as Error).message.split('\n')[0]}`);
  process.exitCode = 1;
}
