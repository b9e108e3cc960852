// What auto-accept-edits approves with no dialog although it is no edit, or an edit of git's own
// files or outside the repository.
import { renderContentForDisplay } from '../../context/display.js';
import { isPlainObject } from '../../text/json.js';
import { WRITE_FIELDS } from './file-tools.js';
import type { GuardHost } from './host.js';
import { isAbsolute, resolve, within } from './host.js';

/**
 * Qwen 0.24.4's auto-accept-edits mode approves, besides edits, every call whose dialog is an "info"
 * one (its isAutoEditApproved): web_fetch, web_search, artifact and image_gen ask with one. It is also
 * the mode every subagent of a trusted repository runs in when its definition names none, whatever
 * the session's. Measured through the launcher: one Shift+Tab, then a model's web_fetch of
 * `<server>/collect?d=…` reached that server with no dialog (in the default mode, one approved `agent`
 * call, then the subagent's web_fetch did the same), and an artifact of `/etc/hostname` was copied
 * into the Qwen home's `artifacts/` with no dialog. Each entry: what the tool does that is no edit.
 */
const AUTO_EDIT_MODES: ReadonlySet<unknown> = new Set(['auto_edit', 'auto-edit']);
const AUTO_EDIT_APPROVED: Readonly<Record<string, string>> = {
  web_fetch: 'it sends what the model wrote into the URL to the server it names',
  web_search: "it sends the model's query to a search service",
  artifact:
    'it reads any file the model names, also outside the repository, copies it into the Qwen home ' +
    '(artifacts/) and opens it in a browser, or uploads it when a remote publisher is set',
  image_gen: "it sends the model's prompt to an image service and saves what comes back",
};

export const AUTO_EDIT_EGRESS_REASON =
  'Qwen runs this tool with no dialog in auto-accept-edits mode (also the mode of a subagent), though ' +
  'it is no edit: ';

/**
 * The edits auto-accept-edits approves (write_file, edit, notebook_edit) may write git's own files:
 * measured through the launcher, one Shift+Tab, then the model read `.git/config`, wrote a textconv
 * into it and a `.gitattributes` naming it, and its `git diff` (read-only to Qwen: no dialog) ran the
 * program — the launcher judged the git directory at start only. So the guard asks there before a
 * write into a `.git` (a directory or a `gitdir:` file, as written or through a link) and before one
 * of a `post-index-change` hook (git diff and status refresh the index; a hooks directory may be
 * anywhere in the repository, such as husky's).
 */
const GIT_OWN_FILE = /(?:^|[\\/])(?:\.git(?:[\\/]|$)|post-index-change$)/i;

export const GIT_WRITE_REASON =
  "This edit writes git's own files (its configuration, hooks or index), which decide the programs " +
  'git runs for the read-only git commands Qwen runs with no dialog; the launcher judged them at start only. Path: ';

/**
 * The same edits approve a write anywhere the developer may write, outside the repository too:
 * measured through the launcher, one Shift+Tab, then the model's write_file created
 * `~/.ssh/authorized_keys` with no dialog (also a subagent's edit, whose mode this is). Qwen's own
 * auto mode asks before a write outside the workspace; in the default mode its dialog shows the path.
 * So the guard asks before an edit outside the repository root, as written or through a link.
 */
export const OUTSIDE_WRITE_REASON =
  'This edit writes outside the repository, which Qwen approves with no dialog in auto-accept-edits ' +
  'mode (also the mode of a subagent). Path: ';

function editRisk(input: Record<string, unknown>, root: string, host: GuardHost): string | undefined {
  const tool = input.tool_name;
  const fields =
    typeof tool === 'string' && Object.hasOwn(WRITE_FIELDS, tool) ? WRITE_FIELDS[tool] : undefined;
  if (fields === undefined || !isPlainObject(input.tool_input)) return undefined;
  for (const field of fields) {
    const value = input.tool_input[field];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'string') return GIT_WRITE_REASON + renderContentForDisplay(JSON.stringify(value));
    const path = resolve(root, value);
    const real = host.realpath(path);
    if (GIT_OWN_FILE.test(path) || GIT_OWN_FILE.test(real))
      return GIT_WRITE_REASON + renderContentForDisplay(value);
    if (!within(root, path) || !within(host.realpath(root), real))
      return OUTSIDE_WRITE_REASON + renderContentForDisplay(value);
  }
  return undefined;
}

/** What auto-accept-edits would run with no dialog and the guard asks for there (undefined: nothing). */
export function autoEditRisk(input: Record<string, unknown>, host: GuardHost): string | undefined {
  if (!AUTO_EDIT_MODES.has(input.permission_mode)) return undefined;
  const tool = input.tool_name;
  if (typeof tool === 'string' && Object.hasOwn(AUTO_EDIT_APPROVED, tool))
    return `${AUTO_EDIT_EGRESS_REASON}${AUTO_EDIT_APPROVED[tool]}. Tool: ${renderContentForDisplay(tool)}`;
  return typeof input.cwd === 'string' && isAbsolute(input.cwd)
    ? editRisk(input, input.cwd, host)
    : undefined;
}
