// What render produces: data (relative path → bytes and mode), applied to disk by writer.ts.

export interface RenderedFile {
  bytes: Uint8Array;
  /** Permission bits, e.g. 0o644. */
  mode: number;
}

export const FILE_MODE = 0o644;
export const EXECUTABLE_MODE = 0o755;
export const DIRECTORY_MODE = 0o755;
