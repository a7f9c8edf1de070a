// The floor of any process between a client and a stdio server: it starts the server and copies
// bytes both ways, parsing nothing. The gateway rows compare `conduit-mcp serve` with it: what is
// left between them is the gateway's own work; what is between it and direct is the extra hop.
//
//   node bench/relay.mjs <command> [args...]
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
process.stdin.on('end', () => child.stdin.end());
child.on('exit', (code) => process.exit(code ?? 0));
