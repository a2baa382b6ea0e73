/**
 * The in-sandbox half of scoped `net:connect` under bubblewrap (DESIGN §5). The sandbox has its
 * own network namespace with only a loopback interface, so the tool cannot reach anything. This
 * script runs first inside it (with the same node binary as the host), listens on 127.0.0.1 of
 * the sandbox's own loopback, pipes every connection to the host proxy's unix socket (bound into
 * the sandbox) and starts the real command with HTTP(S)_PROXY pointing at itself.
 *
 * It enforces nothing: the host proxy decides. A tool that talks to the unix socket directly
 * meets the same checks. It is kept as source text and run with `node -e`, so it needs no file in
 * the installed SDK and no path inside the sandbox.
 *
 * argv: <unix socket path> <command> [args...]
 */
export const FORWARDER_SOURCE = String.raw`'use strict';
const net = require('node:net');
const cp = require('node:child_process');
const os = require('node:os');
const [socketPath, command, ...args] = process.argv.slice(1);
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.pipe(upstream);
  upstream.pipe(client);
  client.on('error', () => upstream.destroy());
  upstream.on('error', () => client.destroy());
  client.on('close', () => upstream.destroy());
  upstream.on('close', () => client.destroy());
});
// Errors end one connection (or, before listening, the run with a message); never an uncaught throw.
let listening = false;
server.on('error', (e) => {
  if (listening) return;
  process.stderr.write('arcotheon sandbox forwarder: cannot listen: ' + e.message + '\n');
  process.exit(127);
});
server.listen(0, '127.0.0.1', () => {
  listening = true;
  const url = 'http://127.0.0.1:' + server.address().port;
  const env = {
    ...process.env,
    HTTPS_PROXY: url, HTTP_PROXY: url, https_proxy: url, http_proxy: url, ALL_PROXY: url, all_proxy: url,
    NODE_USE_ENV_PROXY: '1',
    // Node tools honour the proxy through NODE_USE_ENV_PROXY; its "experimental" warning would land in every run's stderr.
    NODE_OPTIONS: ((process.env.NODE_OPTIONS || '') + ' --disable-warning=UNDICI-EHPA').trim(),
  };
  delete env.NO_PROXY;
  delete env.no_proxy;
  const child = cp.spawn(command, args, { stdio: 'inherit', env });
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('error', (e) => {
    process.stderr.write('arcotheon sandbox forwarder: cannot start ' + command + ': ' + e.message + '\n');
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (os.constants.signals[signal] ?? 0)));
});
`;
