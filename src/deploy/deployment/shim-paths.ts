// Which pinned paths the bin/ shims can carry (src/deploy/render/shims.ts writes them): deployment.json
// validation refuses the others up front, and the shim generators refuse them again.
import { CONTROL_CHARACTER } from '../../policy/quote.js';

/** Why `p` cannot go into a POSIX shim, or undefined when it can (single quotes keep everything else literal). */
export function posixShimPathProblem(p: string): string | undefined {
  if (!p.startsWith('/')) return 'is not an absolute POSIX path';
  if (CONTROL_CHARACTER.test(p)) return 'contains a control character';
  return undefined;
}

/**
 * Why `p` cannot go into the Windows shims, or undefined when it can. In the .cmd file a path sits in
 * double quotes, where `&|<>^` are literal, `%` is escaped as `%%` and `!` is literal because the
 * shim disables delayed expansion; a `"` cannot be escaped inside double quotes (and is not a valid
 * Windows file-name character anyway), and a non-ASCII character depends on code pages. In the .ps1
 * file single quotes keep everything literal.
 */
export function windowsShimPathProblem(p: string): string | undefined {
  if (!/^[A-Za-z]:\\/.test(p) && !/^\\\\[^\\]+\\[^\\]+/.test(p)) return 'is not an absolute Windows path';
  if (CONTROL_CHARACTER.test(p)) return 'contains a control character';
  if (p.includes('"')) return 'contains a double quote, which cmd cannot quote';
  // cmd reads a batch file in the console's code page and Windows PowerShell 5.1 reads a BOM-less
  // script in the ANSI code page: a non-ASCII path would arrive as a different path.
  if (/[^\u0020-\u007e]/u.test(p)) {
    return 'contains a non-ASCII character, which the shims cannot carry reliably';
  }
  return undefined;
}
