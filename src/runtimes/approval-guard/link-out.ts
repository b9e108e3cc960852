// A file tool's path in the repository that a link leads out of it: denied, naming the target.
import { renderContentForDisplay } from '../../context/display.js';
import { isPlainObject } from '../../text/json.js';
import { isReadTool, READ_TOOLS, WRITE_FIELDS } from './file-tools.js';
import { type GuardHost, resolve, within } from './host.js';

export const LINK_OUT_REASON =
  "This path is a link in the repository to a place outside it, and Qwen's dialog would name only " +
  'the link. Name the place itself (Qwen then asks, showing it). Path: ';

/**
 * A file tool's path inside the repository that a link leads out of it (a link git does not track,
 * which the launcher does not judge: a non-git checkout, an untracked or built file). Measured on
 * Qwen 0.24.4: read_file of `notes.txt -> /proc/self/environ` asked "ReadFile notes.txt", and one
 * Enter sent the target to the model. Denied (not asked: Qwen asks too, and a second ask is a second
 * dialog), naming the target, so the model can name it and Qwen's own dialog show it.
 */
export function linksOut(input: Record<string, unknown>, root: string, host: GuardHost): string | undefined {
  const tool = input.tool_name;
  const fields = isReadTool(tool)
    ? READ_TOOLS[tool]
    : typeof tool === 'string' && Object.hasOwn(WRITE_FIELDS, tool)
      ? WRITE_FIELDS[tool]
      : undefined;
  if (fields === undefined || !isPlainObject(input.tool_input)) return undefined;
  const realRoot = host.realpath(root);
  for (const field of fields) {
    const value = input.tool_input[field];
    if (typeof value !== 'string' || value === '') continue;
    const path = resolve(root, value);
    const real = host.realpath(path);
    if (within(root, path) && !within(realRoot, real))
      return `${LINK_OUT_REASON}${renderContentForDisplay(value)} (a link to ${renderContentForDisplay(real)})`;
  }
  return undefined;
}
