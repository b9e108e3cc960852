// A shell line Qwen 0.24.4 judges only in part: the command after a leading shell's -c.

// Qwen 0.24.4 classifies only the command after a leading shell's -c (its stripShellWrapper: sh,
// bash, zsh, cmd, powershell, pwsh, any path, any case, quoted) but runs the whole line: measured,
// `BASH_ENV=./evil.sh bash -c ls` and `bash /repo/evil.sh -c ls` ran the script with no dialog.
export const SHELL_WORD =
  /(?<![\w.-])(?:ba|z)?sh(?:\.exe)?(?![\w./-])|(?<![\w.-])(?:cmd|powershell|pwsh)(?:\.exe)?(?![\w./-])/i;
export const COMMAND_MARKER = /(?:^|\s)['"]?(?:-[a-z]*c[a-z]*|\/c|-command)['"]?(?=\s|$)/i;

export const SHELL_WRAPPER_REASON =
  "Qwen judges only the command after a shell's -c (bash -c …) and runs the whole line, which may " +
  'run other programs first (BASH_ENV, a script named before -c, commands after it).';
