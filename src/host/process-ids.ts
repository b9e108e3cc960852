// A process's user and group ids and the calls that change them — one view of `process` for the two
// that switch: the broker drops to its user for good (setgroups, setgid, setuid); rollback run as root
// acts as a file's owner for a while (setegid, seteuid). Injected, so tests run either without root.
export interface ProcessIds {
  getuid(): number;
  geteuid(): number;
  getgid(): number;
  getegid(): number;
  getgroups(): number[];
  setgroups(groups: number[]): void;
  setgid(gid: number): void;
  setuid(uid: number): void;
  setegid(gid: number): void;
  seteuid(uid: number): void;
}

/** `proc`'s ids, or undefined where Node has none of these calls (Windows). */
export function processIds(proc: NodeJS.Process): ProcessIds | undefined {
  const { getuid, geteuid, getgid, getegid, getgroups, setgroups, setgid, setuid, setegid, seteuid } = proc;
  if (
    getuid === undefined ||
    geteuid === undefined ||
    getgid === undefined ||
    getegid === undefined ||
    getgroups === undefined ||
    setgroups === undefined ||
    setgid === undefined ||
    setuid === undefined ||
    setegid === undefined ||
    seteuid === undefined
  )
    return undefined;
  return {
    getuid: () => getuid.call(proc),
    geteuid: () => geteuid.call(proc),
    getgid: () => getgid.call(proc),
    getegid: () => getegid.call(proc),
    getgroups: () => getgroups.call(proc),
    setgroups: (groups) => setgroups.call(proc, groups),
    setgid: (gid) => setgid.call(proc, gid),
    setuid: (uid) => setuid.call(proc, uid),
    setegid: (gid) => setegid.call(proc, gid),
    seteuid: (uid) => seteuid.call(proc, uid),
  };
}
