// What the admin commands need from the machine, injected by the entry (qwen-managed.ts) so that
// tests run the commands in-process with a fixed clock, uid, runtime folder and streams.
import type { Writable } from 'node:stream';
import type { LaunchFs } from '../../launcher/prepare-launch.js';
import type { SessionStoreReader } from '../../launcher/prepare-openclaw.js';
import type { EffectiveIdentity } from '../deploy/rollback/settings-file.js';
import type { Progress } from './progress.js';

export interface AdminDeps {
  toolkitVersion: string;
  /** ISO time, for changedAt and backup folder names. */
  now(): string;
  /** The uid recorded as manifest.json `adminUid`. */
  adminUid(): number;
  /** This process's effective ids (rollback --settings as root acts as the directory's owner). */
  identity: EffectiveIdentity | undefined;
  /** The toolkit's bundled runtimes (dist/runtime); `--runtime-dir` overrides it. */
  runtimeDir(): Promise<string>;
  /** The Node running the toolkit: smoke runs use it when the pinned node is absent here. */
  nodePath: string;
  hostPlatform: NodeJS.Platform;
  /** The current user's passwd entry (plan: HOME and QWEN_HOME come from it, never from $HOME). */
  userInfo(): { homedir: string };
  /** The file system the launcher's decision reads through (plan). */
  fs: LaunchFs;
  /** Reads OpenClaw's session database with the pinned Node 24: the launcher's own reader (plan). */
  openclawSessions: SessionStoreReader;
  /** Progress renderer for a command's steps (listr2 on a TTY, plain lines otherwise). */
  progress(stdout: Writable & { isTTY?: boolean }, stderr: Writable): Progress;
  /** Calls `stop` on the first SIGINT/SIGTERM; returns a function that removes the handlers. */
  onShutdownSignal(stop: () => void): () => void;
}
