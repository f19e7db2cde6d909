import type { AddressInfo, Socket } from 'node:net';
import type { Server } from 'node:http';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * Keep-alive connections the warm-up opens, the requests it makes on each, and how long it waits
 * for an answer (then it stops). Enough for V8 to keep what it sees (a function's feedback starts
 * after its first few calls); four connections of ten requests held 1.8 MiB more of a server's
 * RSS under authenticated GETs (`scripts/bench/get-cost.mjs`).
 */
const CONNECTIONS = 2;
const REQUESTS_EACH = 6;
const REQUEST_TIMEOUT_MS = 2000;
/** How long it waits for the server to read its connections' ends. */
const CLOSE_WAIT_MS = 2000;

/**
 * Runs a server's connection paths once before its clients make them hot: on `server` (an API
 * server of the warm-up's own, which answers as the real one does) at a loopback port of its
 * own, a few keep-alive connections make requests for `path`, then their client closes them and
 * the server reads their ends. The server is closed when it returns; it never fails.
 *
 * V8 optimises Node's socket-reading code (`onStreamRead`, `Readable.push`, `Readable.read`,
 * `flow`, …) for the sockets it has seen. A connection older than that code (a client's first,
 * left idle) that closes later meets code made without it: V8 threw 13 of those functions away
 * ("wrong map", `--trace-deopt`) and optimised them again under the next requests. Run first,
 * such sockets are in what V8 optimises. `tel serve` runs it at its first simulated call
 * (`warmAtFirstCall` in src/cli/start-serving.ts, which says what it buys).
 */
export async function warmConnectionPaths(server: Server, path: string): Promise<void> {
  const http = require('node:http') as typeof import('node:http');
  const open = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    /** answers whether the request was answered */
    const request = () =>
      new Promise<boolean>((resolve) => {
        const req = http.get({ host: '127.0.0.1', port, path, agent, timeout: REQUEST_TIMEOUT_MS }, (res) => {
          res.on('end', () => resolve(true)).on('error', () => resolve(false));
          res.resume();
        });
        req.on('timeout', () => req.destroy()).on('error', () => resolve(false));
      });
    for (let i = 0; i < REQUESTS_EACH; i++) {
      const answered = await Promise.all(Array.from({ length: CONNECTIONS }, request));
      if (answered.includes(false)) break;
    }
    // the client lets its idle connections go: the server reads their ends
    agent.destroy();
    const deadline = Date.now() + CLOSE_WAIT_MS;
    while (open.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 5));
  } catch {
    // a warm-up that could not run leaves the server as it would be without it
  } finally {
    agent.destroy();
    server.closeAllConnections();
    if (server.listening) await new Promise((resolve) => server.close(resolve));
  }
}
