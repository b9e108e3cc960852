// The settings keys of each supported Qwen version (type, merge strategy, enum), extracted from
// Qwen's own schema into policies/qwen/<version>/settings.json. A module of its own: the launcher
// needs it only for a repository with workspace settings, so its start does not pay for the table.
import { SETTINGS_TABLES, type SettingsTable } from './settings-tables.js';
import { qwenVersionFacts } from './versions.js';

/** Every settings key of a supported version, dotted; undefined for any other version. */
export function qwenSettingsFacts(version: string): SettingsTable | undefined {
  const facts = qwenVersionFacts(version);
  return facts === undefined ? undefined : SETTINGS_TABLES[facts.settingsFile];
}
