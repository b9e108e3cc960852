// Progress of the long admin commands: plain lines off a terminal, listr2 on one; each step's result
// is returned to the command.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { plainProgress, progressFor } from '../../../src/cli/progress.js';

describe('progress', () => {
  it('prints plain lines off a terminal, returns each result, and marks the failing step', async () => {
    const out = new PassThrough();
    let text = '';
    out.on('data', (c) => (text += c));
    const progress = plainProgress(out);
    const results = [
      await progress.step(
        'One',
        async () => 1,
        (n) => `detail ${n}`,
      ),
      await progress.step('Two', async () => 'two'),
    ];
    await expect(
      progress.step('Three', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    expect(results).toEqual([1, 'two']);
    expect(text).toBe('One … ok (detail 1)\nTwo … ok\nThree … failed\n');
  });

  it('uses listr2 on a terminal', async () => {
    const tty = Object.assign(new PassThrough(), { isTTY: true, columns: 80, rows: 24 });
    let text = '';
    tty.on('data', (c) => (text += c));
    const files = await progressFor(tty, new PassThrough()).step(
      'Render the install tree',
      async () => 3,
      (n) => `${n} files`,
    );
    expect(files).toBe(3);
    expect(text).toContain('Render the install tree (3 files)');
    expect(text).toContain('✔');
    expect(text).not.toContain(' … ok');
  });
});
