// The one home of the deployment platforms: the type, the host mapping and the path rules. A
// deployment names its platform; the admin machine that renders it may be another one.
import * as path from 'node:path';

export const PLATFORMS = ['posix', 'windows'] as const;
export type Platform = (typeof PLATFORMS)[number];

/** The deployment platform of a Node host (`process.platform`): Windows, or POSIX for everything else. */
export function platformOfHost(hostPlatform: string): Platform {
  return hostPlatform === 'win32' ? 'windows' : 'posix';
}

/** The path separator of a platform's pinned paths. */
export function pathSeparator(platform: Platform): '/' | '\\' {
  return platform === 'windows' ? '\\' : '/';
}

/** Node's path functions for a platform's paths, whatever the host (render may run elsewhere). */
export function pathFunctions(platform: Platform): path.PlatformPath {
  return platform === 'windows' ? path.win32 : path.posix;
}

/** access(2)'s modes (fs.constants.R_OK, X_OK), for the pure checks that take an injected fs. */
export const ACCESS = { R_OK: 4, X_OK: 1 } as const;
