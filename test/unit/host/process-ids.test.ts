import { describe, expect, it } from 'vitest';
import { processIds } from '../../../src/host/process-ids.js';

// The one view of a process's ids the broker's drop and rollback's owner switch both take.
describe('processIds', () => {
  const calls: string[] = [];
  const proc = {
    getuid: () => 1,
    geteuid: () => 2,
    getgid: () => 3,
    getegid: () => 4,
    getgroups: () => [5, 6],
    setgroups: (groups: number[]) => calls.push(`setgroups ${groups.join(',')}`),
    setgid: (gid: number) => calls.push(`setgid ${gid}`),
    setuid: (uid: number) => calls.push(`setuid ${uid}`),
    setegid: (gid: number) => calls.push(`setegid ${gid}`),
    seteuid: (uid: number) => calls.push(`seteuid ${uid}`),
  } as unknown as NodeJS.Process;

  it('reads and sets through the process, each call to its own', () => {
    const ids = processIds(proc)!;
    expect([ids.getuid(), ids.geteuid(), ids.getgid(), ids.getegid(), ids.getgroups()]).toEqual([
      1,
      2,
      3,
      4,
      [5, 6],
    ]);
    ids.setgroups([7]);
    ids.setgid(8);
    ids.setuid(9);
    ids.setegid(10);
    ids.seteuid(11);
    expect(calls).toEqual(['setgroups 7', 'setgid 8', 'setuid 9', 'setegid 10', 'seteuid 11']);
  });

  it.each(['getuid', 'setgroups', 'seteuid'])(
    'none where Node has no %s (Windows has none of them)',
    (missing) => {
      expect(processIds({ ...proc, [missing]: undefined } as NodeJS.Process)).toBeUndefined();
    },
  );

  it("this process's (POSIX) ids are its own", () => {
    expect(processIds(process)?.geteuid()).toBe(process.geteuid?.());
  });
});
