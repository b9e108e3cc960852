// What the admin commands need from the machine, injected by the entry (main.ts) so that tests run
// the commands in-process with a fixed clock, uid and runtime folder.
import type { Writable } from 'node:stream';
import type { StepRunner } from './progress.js';

export interface AdminDeps {
  toolkitVersion: string;
  /** ISO time, for changedAt and backup folder names. */
  now(): string;
  /** The uid recorded as manifest.json `adminUid`. */
  adminUid(): number;
  /** The toolkit's bundled runtimes (dist/runtime); `--runtime-dir` overrides it. */
  runtimeDir(): Promise<string>;
  /** The Node running the toolkit: smoke runs use it when the pinned node is absent here. */
  nodePath: string;
  hostPlatform: NodeJS.Platform;
  /** Progress renderer for a command's steps (listr2 on a TTY, plain lines otherwise). */
  steps(stdout: Writable & { isTTY?: boolean }, stderr: Writable): StepRunner;
}
