// Process plumbing shared by the runtimes: writing stdout synchronously, silencing Node's warning
// printer, and recognising the entry point.
import { realpathSync, writeSync } from 'node:fs';

/** Writes all of `text` to stdout synchronously, so exiting right after loses nothing. */
export function writeStdoutSync(text: string): void {
  const bytes = Buffer.from(text, 'utf8');
  let offset = 0;
  while (offset < bytes.length) {
    try {
      offset += writeSync(1, bytes, offset);
    } catch (error) {
      // A non-blocking pipe that is momentarily full: try again; anything else ends the write.
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
    }
  }
}

/**
 * Silences Node's own warning printer: a fail-open hook must keep stderr empty, and a dependency's
 * "experimental" notice is not ours to show.
 */
export function silenceWarnings(): void {
  process.removeAllListeners('warning');
  process.on('warning', () => {});
}

/** True when this bundle is the program Node started, also when started through a symlink. */
export function isEntryPoint(argv1: string | undefined, ownFile: string): boolean {
  if (argv1 === undefined) return false;
  try {
    return realpathSync.native(argv1) === realpathSync.native(ownFile);
  } catch {
    return false;
  }
}

// getaddrinfo runs on the threadpool and nothing cancels it: destroying the socket leaves it running.
const LOOKUPS: ReadonlySet<string> = new Set(['GetAddrInfoReqWrap', 'GetNameInfoReqWrap']);

/** True while a host-name lookup is in flight (a threadpool thread process.exit() would wait for). */
export function lookupPending(): boolean {
  return process.getActiveResourcesInfo().some((resource) => LOOKUPS.has(resource));
}
