// A saved provider config to restore must be a valid version-1 config (the on-demand shape): the
// runtimes' own parser decides, before anything is written.
import * as fs from 'node:fs/promises';
import { ConfigurationError } from '../../base/errors.js';
import { parseRuntimeConfig } from '../../config/load.js';
import { RollbackError } from './types.js';

export async function readSavedV1Config(file: string): Promise<Buffer> {
  const bytes = await fs.readFile(file).catch(() => undefined);
  if (bytes === undefined) throw new RollbackError(`cannot read the saved provider config ${file}`);
  try {
    parseRuntimeConfig(bytes.toString('utf8'), 1);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    const at =
      error.keyPath === undefined || error.keyPath.length === 0 ? '' : ` (at ${error.keyPath.join('.')})`;
    throw new RollbackError(`${file} is not a restorable version-1 provider config: ${error.message}${at}`);
  }
  return bytes;
}
