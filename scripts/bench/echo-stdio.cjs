// The baseline of the MCP start rows: a bare `node` that answers every JSON-RPC request line on stdin
// with an empty result, through process.stdin as any stdio server reads it. `server − echo` is what
// our server (the MCP SDK, the config, the provider) adds to the start Qwen waits for.
// Plain CommonJS on purpose (no bundle, no build): `node echo-stdio.cjs`.
'use strict';
let buffer = '';
process.stdin.setEncoding('utf8').on('data', (chunk) => {
  buffer += chunk;
  const lines = buffer.split('\n');
  buffer = lines.pop();
  for (const line of lines) {
    const { id } = JSON.parse(line);
    if (id !== undefined) process.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, result: {} })}\n`);
  }
});
