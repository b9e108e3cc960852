// A small JSONC parser that keeps source positions, so rollback can edit a settings file surgically
// (Qwen settings may be JSONC: comments and trailing commas). Values follow JSON.parse semantics
// (a duplicate key: the last one wins).
import { AdminInputError } from '../base/errors.js';
import type { JsonObject } from './json.js';

export interface ScalarNode {
  kind: 'scalar';
  start: number;
  end: number;
  value: string | number | boolean | null;
}
export interface ArrayNode {
  kind: 'array';
  start: number;
  end: number;
  elements: JsoncNode[];
  value: unknown[];
}
export interface PropertyNode {
  /** Offset of the key's opening quote. */
  start: number;
  /** Offset just after the value. */
  end: number;
  key: string;
  node: JsoncNode;
}
export interface ObjectNode {
  kind: 'object';
  start: number;
  end: number;
  properties: PropertyNode[];
  value: JsonObject;
}
export type JsoncNode = ScalarNode | ArrayNode | ObjectNode;

export class JsoncError extends AdminInputError {
  override readonly name = 'JsoncError';
  constructor(
    message: string,
    readonly offset: number,
    text: string,
  ) {
    const before = text.slice(0, offset).split('\n');
    super(`${message} at line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const HEX = /^[0-9A-Fa-f]{4}$/;
const ESCAPES = new Set(['"', '\\', '/', 'b', 'f', 'n', 'r', 't']);

/**
 * The end (just past the closing quote) of the JSON string starting at `start`, or -1. A plain scan,
 * not a regex: a `(a|b)*` regex backtracks once per character and overflows V8's stack on a
 * multi-megabyte string.
 */
export function scanJsonString(text: string, start: number): number {
  if (text[start] !== '"') return -1;
  let i = start + 1;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x22) return i + 1;
    if (code < 0x20) return -1;
    if (code === 0x5c) {
      const next = text[i + 1];
      if (next === 'u') {
        if (!HEX.test(text.slice(i + 2, i + 6))) return -1;
        i += 6;
      } else if (next !== undefined && ESCAPES.has(next)) i += 2;
      else return -1;
    } else i++;
  }
  return -1;
}

export function parseJsonc(text: string): JsoncNode {
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const fail = (message: string): never => {
    throw new JsoncError(message, i, text);
  };
  const skip = () => {
    for (;;) {
      const c = text[i];
      if (c === ' ' || c === '\t' || c === '\n' || c === '\r') i++;
      else if (c === '/' && text[i + 1] === '/') {
        while (i < text.length && text[i] !== '\n') i++;
      } else if (c === '/' && text[i + 1] === '*') {
        const close = text.indexOf('*/', i + 2);
        if (close === -1) fail('unterminated comment');
        i = close + 2;
      } else return;
    }
  };
  const string = (): string | undefined => {
    const end = scanJsonString(text, i);
    if (end === -1) return undefined;
    const raw = text.slice(i, end);
    i = end;
    return raw;
  };
  const token = (re: RegExp): string | undefined => {
    re.lastIndex = i;
    const match = re.exec(text);
    if (match === null) return undefined;
    i += match[0].length;
    return match[0];
  };
  const value = (): JsoncNode => {
    skip();
    const start = i;
    const c = text[i];
    if (c === '{') {
      i++;
      const properties: PropertyNode[] = [];
      const object: JsonObject = {};
      for (;;) {
        skip();
        if (text[i] === '}') break;
        const keyStart = i;
        const key = string();
        if (key === undefined) fail('expected a property name');
        skip();
        if (text[i] !== ':') fail('expected ":"');
        i++;
        const node = value();
        const name = JSON.parse(key!) as string;
        properties.push({ start: keyStart, end: node.end, key: name, node });
        // Own data property even for "__proto__", exactly like JSON.parse.
        Object.defineProperty(object, name, {
          value: node.value,
          enumerable: true,
          writable: true,
          configurable: true,
        });
        skip();
        if (text[i] === ',') i++;
        else if (text[i] !== '}') fail('expected "," or "}"');
      }
      i++;
      return { kind: 'object', start, end: i, properties, value: object };
    }
    if (c === '[') {
      i++;
      const elements: JsoncNode[] = [];
      for (;;) {
        skip();
        if (text[i] === ']') break;
        elements.push(value());
        skip();
        if (text[i] === ',') i++;
        else if (text[i] !== ']') fail('expected "," or "]"');
      }
      i++;
      return { kind: 'array', start, end: i, elements, value: elements.map((e) => e.value) };
    }
    if (c === '"') {
      const raw = string();
      if (raw === undefined) fail('invalid string');
      return { kind: 'scalar', start, end: i, value: JSON.parse(raw!) as string };
    }
    for (const [word, literal] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return { kind: 'scalar', start, end: i, value: literal };
      }
    }
    const number = token(NUMBER);
    if (number === undefined) fail('unexpected character');
    return { kind: 'scalar', start, end: i, value: Number(number) };
  };
  const root = value();
  skip();
  if (i < text.length) fail('unexpected text after the value');
  return root;
}
