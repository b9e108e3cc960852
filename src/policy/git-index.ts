// The links a git index records: its gitlinks (mode 160000), the submodules git status recurses into
// — git runs `git status` inside every populated one, with that submodule's own configuration and
// hooks, also without a `.gitmodules` (measured with git 2.39), so the launcher judges their git
// directories too — and its symbolic links (mode 120000), which a checkout makes in the working tree
// and Qwen's read-only tools follow, so the launcher judges where each leads.
// Pure: the caller reads the file (docs/repository.md#git).

const GITLINK = 0o160000;
const SYMLINK = 0o120000;

export type IndexLinks = { gitlinks: string[]; symlinks: string[] } | { error: string };

/** git's offset varint (varint.c), as index version 4 writes the bytes a path drops from the previous one. */
function varint(data: Uint8Array, at: number): { value: number; next: number } | undefined {
  let c = data[at++];
  if (c === undefined) return undefined;
  let value = c & 127;
  while (c & 128) {
    c = data[at++];
    if (c === undefined) return undefined;
    value = ((value + 1) << 7) + (c & 127);
  }
  return { value, next: at };
}

/**
 * The paths of every gitlink and every symbolic link in an index of version 2, 3 or 4 (`hashBytes`:
 * 20 for SHA-1, 32 for SHA-256). A split index (the `link` extension) keeps entries in another file:
 * reported as an error, as is anything git itself would not read.
 */
export function indexLinks(data: Uint8Array, hashBytes: number): IndexLinks {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const text = new TextDecoder();
  if (data.length < 12 || text.decode(data.subarray(0, 4)) !== 'DIRC') return { error: 'not a git index' };
  const version = view.getUint32(4);
  if (version < 2 || version > 4) return { error: `index version ${version}` };
  const count = view.getUint32(8);
  const gitlinks: string[] = [];
  const symlinks: string[] = [];
  let at = 12;
  // Version 4 writes each path as a suffix of the previous one: the current path, rebuilt in place.
  let name = new Uint8Array(4096);
  let nameLength = 0;
  const nulFrom = (from: number): number => data.indexOf(0, from);
  for (let i = 0; i < count; i++) {
    const fixed = 40 + hashBytes + 2;
    if (at + fixed > data.length) return { error: 'a truncated entry' };
    const mode = view.getUint32(at + 24);
    const flags = view.getUint16(at + 40 + hashBytes);
    let nameAt = at + fixed;
    if (flags & 0x4000) {
      if (version < 3) return { error: 'an extended entry in a version 2 index' };
      nameAt += 2;
    }
    const type = mode & 0o170000;
    // The entry's path is decoded only for the links (most entries are neither).
    const list = type === GITLINK ? gitlinks : type === SYMLINK ? symlinks : undefined;
    if (version === 4) {
      const strip = varint(data, nameAt);
      if (strip === undefined || strip.value > nameLength) return { error: 'a bad path prefix' };
      const nul = nulFrom(strip.next);
      if (nul < 0) return { error: 'an unterminated path' };
      const length = nameLength - strip.value + (nul - strip.next);
      if (length > name.length) {
        const grown = new Uint8Array(length * 2);
        grown.set(name.subarray(0, nameLength));
        name = grown;
      }
      name.set(data.subarray(strip.next, nul), nameLength - strip.value);
      nameLength = length;
      list?.push(text.decode(name.subarray(0, nameLength)));
      at = nul + 1;
    } else {
      // The flags hold the path's length (0xFFF: that long or longer, then up to its NUL).
      const short = flags & 0xfff;
      const nul = short < 0xfff ? nameAt + short : nulFrom(nameAt + 0xfff);
      if (nul < 0 || nul >= data.length || data[nul] !== 0) return { error: 'an unterminated path' };
      list?.push(text.decode(data.subarray(nameAt, nul)));
      // Entries of versions 2 and 3 are padded with NULs to a multiple of eight bytes.
      at += Math.floor((nul - at + 8) / 8) * 8;
    }
  }
  // Extensions: a four-letter signature and a size each, up to the trailing checksum.
  while (at + 8 <= data.length - hashBytes) {
    const signature = text.decode(data.subarray(at, at + 4));
    if (signature === 'link')
      return { error: 'a split index (core.splitIndex): its entries are in another file' };
    at += 8 + view.getUint32(at + 4);
  }
  return { gitlinks, symlinks };
}
