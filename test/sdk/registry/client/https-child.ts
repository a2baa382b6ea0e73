/**
 * Child process for the NODE_EXTRA_CA_CERTS test: updates a remote with the plain global fetch
 * (no injected fetch) and prints the verified sequence. argv: home, url, rootKey.
 */
import { RegistryClient } from '../../../../sdk/src/registry/client/registry-client.js';

const [home, url, rootKey] = process.argv.slice(2) as [string, string, string];
try {
  const loaded = await new RegistryClient({ home, remote: { name: 'tls', url, rootKeys: [rootKey] } }).update();
  process.stdout.write(`${JSON.stringify({ ok: true, sequence: loaded.payload.sequence })}\n`);
} catch (error) {
  const e = error as { code?: string; message?: string };
  process.stdout.write(`${JSON.stringify({ ok: false, code: e.code, message: e.message })}\n`);
}
