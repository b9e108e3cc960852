// launcher/unchanged-file.ts undone: the launch's defaults layer is rewritten at every start (the
// bench's `unchanged-defaults` trick row).
export interface UnchangedFileFs {
  lstatSync(path: string): { uid: number; mode: number; isFile(): boolean };
  readFileSync(path: string, encoding: 'utf8'): string;
}

export function isUnchangedPrivateFile(
  _file: string,
  _content: string,
  _uid: number,
  _fs: UnchangedFileFs,
): boolean {
  return false;
}
