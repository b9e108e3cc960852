// A skill, whose allowedTools Qwen 0.24.4 grants for the rest of the session.
import { renderContentForDisplay } from '../../context/display.js';
import { isPlainObject } from '../../text/json.js';

/**
 * Qwen 0.24.4's skill tool applies the skill's `allowedTools` as allow rules for the rest of the
 * session, and its dialog names only the skill ("Use skill: simplify"); in auto-accept-edits there is
 * none (an "info" dialog). Bundled skills offered to the model grant run_shell_command (batch,
 * extension-creator, review, simplify, stuck). Measured through the launcher: one "Yes, allow once" on
 * `simplify` in the default mode (or one Shift+Tab and no dialog at all), then the model's
 * `touch … && curl <server>` ran with no dialog and the server got the data. So the guard asks, in
 * every mode, naming the grant; in the default mode that is a second dialog after Qwen's, which does
 * not say what the skill grants.
 */
export const SKILL_TOOL = 'skill';

export const SKILL_REASON =
  "A skill may grant tools for the rest of this session (its allowedTools; Qwen's bundled batch, " +
  'extension-creator, review, simplify and stuck grant run_shell_command), after which Qwen runs ' +
  'them with no dialog, whatever they do. Skill: ';

/** The skill a skill call names, shown escaped (the model chose it). */
export function skillName(args: unknown): string {
  const name = isPlainObject(args) ? args.skill : undefined;
  return renderContentForDisplay(typeof name === 'string' ? name : JSON.stringify(name ?? null));
}
