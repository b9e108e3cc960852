// Removing hooks by `name` from a Qwen settings document, keeping every other key, hook, comment and
// the formatting: the text is edited in place (only the removed entries and their separators go).
// A matcher group left without hooks is removed, then an event left without groups.

import { AdminInputError } from '../../base/errors.js';
import { isPlainObject, type JsonObject } from '../../text/json.js';
import { type ArrayNode, type JsoncNode, type ObjectNode, parseJsonc } from '../../text/jsonc.js';
import { deepEqual } from '../json.js';

export interface RemovedHook {
  event: string;
  name: string;
}

/** The object-level meaning of the removal (the text edit must produce exactly this value). */
export function removeHooksFromValue(
  settings: JsonObject,
  names: readonly string[],
): { value: JsonObject; removed: RemovedHook[] } {
  const removed: RemovedHook[] = [];
  const hooks = settings.hooks;
  if (!isPlainObject(hooks)) return { value: settings, removed };
  const nextHooks: JsonObject = {};
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) {
      nextHooks[event] = groups;
      continue;
    }
    const nextGroups: unknown[] = [];
    let eventChanged = false;
    for (const group of groups) {
      if (!isPlainObject(group) || !Array.isArray(group.hooks)) {
        nextGroups.push(group);
        continue;
      }
      const kept = group.hooks.filter((hook) => {
        const hit = isPlainObject(hook) && typeof hook.name === 'string' && names.includes(hook.name);
        if (hit) removed.push({ event, name: hook.name as string });
        return !hit;
      });
      if (kept.length === group.hooks.length) nextGroups.push(group);
      else {
        eventChanged = true;
        if (kept.length > 0) nextGroups.push({ ...group, hooks: kept });
      }
    }
    if (!eventChanged || nextGroups.length > 0) nextHooks[event] = nextGroups;
  }
  return removed.length === 0
    ? { value: settings, removed }
    : { value: { ...settings, hooks: nextHooks }, removed };
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

interface Span {
  start: number;
  end: number;
}

/** Edits that delete `remove` (indices into `items`) from a list, separators included. */
function listEdits(
  container: ObjectNode | ArrayNode,
  items: readonly Span[],
  remove: ReadonlySet<number>,
): Edit[] {
  if (remove.size === 0) return [];
  if (remove.size === items.length) return [{ start: container.start + 1, end: container.end - 1, text: '' }];
  const edits: Edit[] = [];
  let lastKept = -1;
  for (let k = 0; k < items.length; k++) if (!remove.has(k)) lastKept = k;
  for (const k of remove) {
    if (k < lastKept) edits.push({ start: items[k]!.start, end: items[k + 1]!.start, text: '' });
  }
  // Removed items after the last kept one: cut from the end of the kept item (its comma goes too).
  const trailing = [...remove].filter((k) => k > lastKept);
  if (trailing.length > 0) {
    edits.push({ start: items[lastKept]!.end, end: items[Math.max(...trailing)]!.end, text: '' });
  }
  return edits;
}

function lastProperty(node: ObjectNode, key: string) {
  return node.properties.findLast((p) => p.key === key);
}

function editsFor(root: JsoncNode, names: readonly string[]): Edit[] {
  if (root.kind !== 'object') return [];
  const hooks = lastProperty(root, 'hooks')?.node;
  if (hooks?.kind !== 'object') return [];
  const edits: Edit[] = [];
  const removeEvents = new Set<number>();
  hooks.properties.forEach((eventProperty, eventIndex) => {
    // Only the effective (last) property of a duplicated key counts, as in JSON.parse.
    if (lastProperty(hooks, eventProperty.key) !== eventProperty) return;
    const groups = eventProperty.node;
    if (groups.kind !== 'array') return;
    const removeGroups = new Set<number>();
    const groupEdits: Edit[] = [];
    groups.elements.forEach((group, groupIndex) => {
      if (group.kind !== 'object') return;
      const list = lastProperty(group, 'hooks')?.node;
      if (list?.kind !== 'array') return;
      const removeHooks = new Set<number>();
      list.elements.forEach((hook, hookIndex) => {
        if (hook.kind !== 'object') return;
        const name = isPlainObject(hook.value) ? hook.value.name : undefined;
        if (typeof name === 'string' && names.includes(name)) removeHooks.add(hookIndex);
      });
      if (removeHooks.size === 0) return;
      if (removeHooks.size === list.elements.length) removeGroups.add(groupIndex);
      else groupEdits.push(...listEdits(list, list.elements, removeHooks));
    });
    if (removeGroups.size === 0 && groupEdits.length === 0) return;
    if (removeGroups.size === groups.elements.length) removeEvents.add(eventIndex);
    else edits.push(...groupEdits, ...listEdits(groups, groups.elements, removeGroups));
  });
  edits.push(...listEdits(hooks, hooks.properties, removeEvents));
  return edits;
}

export class SurgicalEditError extends AdminInputError {
  override readonly name = 'SurgicalEditError';
}

/**
 * Removes the named hooks from settings text. Throws JsoncError when the text does not parse, and
 * SurgicalEditError if the edited text would not mean exactly the object-level removal.
 */
export function removeHooksFromText(
  text: string,
  names: readonly string[],
): { text: string; removed: RemovedHook[] } {
  const root = parseJsonc(text);
  if (root.kind !== 'object') throw new SurgicalEditError('the settings file is not a JSON object');
  const expected = removeHooksFromValue(root.value, names);
  if (expected.removed.length === 0) return { text, removed: [] };
  const edits = editsFor(root, names).sort((a, b) => b.start - a.start);
  let out = text;
  for (const edit of edits) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  // Self-check: never write a file whose meaning differs from the intended removal.
  if (!deepEqual(parseJsonc(out).value, expected.value)) {
    throw new SurgicalEditError(
      'the edited settings would not match the intended removal; nothing was written',
    );
  }
  return { text: out, removed: expected.removed };
}
