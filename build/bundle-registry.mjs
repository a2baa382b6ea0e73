// `prepack` of @arcotheon/sdk (issue 12 item 1): copies the built example registry into the
// package as registry/ (its v1/ folder and the embedded-remote.json pin), so an installed SDK
// carries the registry it names as its default remote and reads ARCOTHEON_ROOT_KEYS from it.
// `--remove` (postpack) deletes the copy again, so a checkout never holds a stale one.
// Only public files are copied: the catalogue, package documents, archives and mirrored blobs,
// all signed; the signing keys stay in examples/.keys/ (never in the package or the repository).
import { cpSync, existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const source = join(root, 'examples', 'registry');
const target = join(root, 'sdk', 'registry');

rmSync(target, { recursive: true, force: true });
if (!process.argv.includes('--remove')) {
  const pin = join(source, 'embedded-remote.json');
  if (!existsSync(pin) || !existsSync(join(source, 'v1', 'catalog.json'))) {
    console.error(`bundle-registry: ${source} holds no built registry; run "npm run examples" at the repository root first.`);
    process.exit(1);
  }
  cpSync(join(source, 'v1'), join(target, 'v1'), { recursive: true });
  cpSync(pin, join(target, 'embedded-remote.json'));
}
