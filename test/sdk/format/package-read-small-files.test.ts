// readPackage writes each small verified file in one go (open, write, close through node:fs's
// callbacks, DESIGN §4 extraction): many of them land intact with their modes, and a package refused
// after hundreds were written leaves neither the staging directory nor an open descriptor behind.
import { readdirSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPackage } from '../../../sdk/src/format/package-read.js';
import { removeTree } from '../../../sdk/src/util/fs-tree.js';
import { rejection } from '../../helpers/errors.js';
import { manifestFor, packageBytes } from '../../helpers/tar-writer.js';

const files = Array.from({ length: 300 }, (_, i) => ({
  path: `docs/part-${i % 7}/file-${i}.md`,
  // Sizes from empty to a few KiB; every tenth file executable.
  data: 'line of text\n'.repeat((i * 37) % 300),
  executable: i % 10 === 0,
}));

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-read-small-'));
});
afterAll(async () => {
  await removeTree(work);
});

/** Descriptors this process holds now. */
function openDescriptors(): number {
  return readdirSync('/proc/self/fd').length;
}

describe('readPackage with many small files', () => {
  it('writes every file with its bytes and mode (read-only: 0444, executables 0555)', async () => {
    const archive = join(work, 'many.adcap');
    await writeFile(archive, packageBytes({ files }));
    const target = join(work, 'many');
    await readPackage(archive, { extractTo: target, readOnly: true });
    for (const file of files) {
      const path = join(target, ...file.path.split('/'));
      expect(await readFile(path, 'utf8')).toBe(file.data);
      expect((await stat(path)).mode & 0o777).toBe(file.executable ? 0o555 : 0o444);
    }
    expect((await readdir(join(target, 'docs'))).sort()).toEqual(Array.from({ length: 7 }, (_, i) => `part-${i}`));
  });

  it.runIf(process.platform === 'linux')(
    'refused after hundreds of files were written: no staging directory and no descriptor left',
    async () => {
      const tampered = files.map((f, i) => (i === files.length - 1 ? { ...f, data: `${f.data}changed\n` } : f));
      const archive = join(work, 'tampered.adcap');
      await writeFile(archive, packageBytes({ manifest: manifestFor(files), files: tampered }));
      const parent = join(work, 'refused');
      await removeTree(parent);
      await mkdir(parent);
      const before = openDescriptors();
      const error = await rejection(readPackage(archive, { extractTo: join(parent, 'pkg') }));
      expect(error.code).toBe('E_HASH');
      expect(await readdir(parent)).toEqual([]);
      expect(openDescriptors()).toBe(before);
    },
  );
});
