// Once per test run, before the e2e files: the location a throwaway user can reach (run-location.ts),
// staged from the installed toolchain, and removed when the run ends. When it cannot be made (no root,
// no useradd, no toolchain) the files that need it fail with the one-line reason given here.
import type { TestProject } from 'vitest/node';
import { ensureE2eToolchain } from './harness/paths.js';
import { type RunLocation, removeRunLocation, stageRunLocation } from './harness/run-location.js';
import { throwawayUsersUnavailable } from './harness/users.js';

export type ProvidedRunLocation = RunLocation | { unavailable: string };

declare module 'vitest' {
  export interface ProvidedContext {
    e2eRunLocation: ProvidedRunLocation;
  }
}

export default function setup(project: TestProject): (() => void) | undefined {
  const unavailable = throwawayUsersUnavailable();
  if (unavailable !== undefined) {
    project.provide('e2eRunLocation', { unavailable });
    return undefined;
  }
  let location: RunLocation;
  try {
    ensureE2eToolchain();
    location = stageRunLocation();
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    project.provide('e2eRunLocation', { unavailable: `the e2e run location could not be made: ${reason}` });
    return undefined;
  }
  project.provide('e2eRunLocation', location);
  return () => removeRunLocation(location);
}
