// The engines.node ranges a package may declare, against the Node versions a deployment may pin.
import { describe, expect, it } from 'vitest';
import { satisfiesEngines } from '../../../src/host/node-engines.js';

describe('satisfiesEngines', () => {
  it.each<[string, string, boolean | undefined]>([
    // Qwen 0.24.x declares ">=22.0.0".
    ['v20.20.2', '>=22.0.0', false],
    ['v21.7.3', '>=22.0.0', false],
    ['v22.0.0', '>=22.0.0', true],
    ['v22.23.3', '>=22.0.0', true],
    ['v24.1.0', '>=22.0.0', true],
    ['v22.23.3', '>= 22', true],
    ['v22.11.0', '>=20.18.1', true],
    ['v20.18.0', '>=20.18.1', false],
    ['v20.18.1', '^20.18.1 || >=22', true],
    ['v21.0.0', '^20.18.1 || >=22', false],
    ['v22.5.0', '22.x', true],
    ['v23.0.0', '22.x', false],
    ['v22.5.0', '~22.4', false],
    ['v22.4.9', '~22.4', true],
    ['v22.5.0', '>=22 <23', true],
    ['v23.0.0', '>=22 <23', false],
    ['v22.5.0', '20 - 22', true],
    ['v23.0.0', '20 - 22', false],
    ['v0.2.5', '^0.2.3', true],
    ['v0.3.0', '^0.2.3', false],
    ['v1.0.0', '*', true],
    ['v1.0.0', '', true],
    ['v22.5.0-nightly', '>=22', true],
    ['not a version', '>=22', undefined],
    ['v22.0.0', '>=banana', undefined],
  ])('%s against %j → %s', (version, range, want) => {
    expect(satisfiesEngines(version, range)).toBe(want);
  });
});
