// The file tools of Qwen 0.24.4 and the arguments that name the path each reads or writes.

/**
 * Qwen 0.24.4's tools that read files or list names, and the arguments that name where. Each runs
 * with no dialog inside the workspace and inside Qwen's own directories — `read_file` and
 * `zoom_image` anywhere under `$QWEN_HOME/tmp` (every project's prompt logs and saved tool output),
 * `grep_search`, `glob` and `list_directory` anywhere under `$QWEN_HOME` (measured: a read_file of
 * another project's `tmp/<hash>/logs.json` and a grep_search of the Qwen home ran with no dialog
 * and sent what they found to the model).
 */
export const READ_TOOLS: Readonly<Record<string, readonly string[]>> = {
  read_file: ['file_path'],
  zoom_image: ['file_path'],
  grep_search: ['path'],
  glob: ['path'],
  list_directory: ['path'],
};

export const isReadTool = (name: unknown): name is string =>
  typeof name === 'string' && Object.hasOwn(READ_TOOLS, name);

// The tools that write a file Qwen names in its dialog by the path as given (it asks for each).
export const WRITE_FIELDS: Readonly<Record<string, readonly string[]>> = {
  write_file: ['file_path'],
  edit: ['file_path'],
  notebook_edit: ['notebook_path'],
};
