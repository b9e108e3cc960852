// How Qwen 0.24 reads a model selector — a subagent's `model:` front matter (also the legacy
// `modelConfig.model`): `inherit`, `fast`, a model id, or `<authType>:<model id>`. Read in the
// bundle (packages/core/src/utils/modelId.ts, `parseModelIdSelector`): the text is trimmed, and the
// part before the first `:`, trimmed, is an auth type only when it is exactly one of Qwen's
// `AuthType` values; anything else (`org/model:tag`) is a model id as a whole.
import type { SettingsTable } from './settings-tables.js';

/** The auth types a Qwen version knows: the values of its `security.auth.selectedType` setting. */
export function authTypesOf(settings: SettingsTable): readonly string[] {
  return (settings['security.auth.selectedType']?.enum ?? []).filter(
    (v): v is string => typeof v === 'string',
  );
}

/** The auth type `selector` names, as Qwen parses it; undefined for a model id alone. */
export function selectorAuthType(selector: string, authTypes: readonly string[]): string | undefined {
  const trimmed = selector.trim();
  const colon = trimmed.indexOf(':');
  if (colon === -1) return undefined;
  const prefix = trimmed.slice(0, colon).trim();
  return authTypes.includes(prefix) ? prefix : undefined;
}
