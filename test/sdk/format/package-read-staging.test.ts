// readPackage's one staging directory (spec §4: nothing is extracted before verification passes):
// with `extractTo` the files are written into one private sibling that the caller's `accept` sees
// and that is renamed into place only after accept passed; with `extractInto` they are written into
// the new directory itself, which a failed check removes. At every point there is one directory
// beside the target, never one staging folder inside another.
import { mkdir, mkdtemp, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdcapError } from '../../../sdk/src/errors.js';
import { readPackage } from '../../../sdk/src/format/package-read.js';
import { removeTree } from '../../../sdk/src/util/fs-tree.js';
import { rejection } from '../../helpers/errors.js';
import { packageBytes } from '../../helpers/tar-writer.js';

let work: string;
let archive: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-read-staging-'));
  archive = join(work, 'p.adcap');
  await writeFile(
    archive,
    packageBytes({
      files: [
        { path: 'README.md', data: '# hi\n' },
        { path: 'docs/a.md', data: 'a\n' },
      ],
    }),
  );
});
afterAll(async () => {
  await removeTree(work);
});

/** A fresh parent folder per case, so its listing is what this case made. */
async function parent(name: string): Promise<string> {
  const dir = join(work, name);
  await mkdir(dir);
  return dir;
}

describe('readPackage staging', () => {
  it('extractTo: accept sees the files in the one staging sibling, and the rename follows it', async () => {
    const dir = await parent('to');
    const target = join(dir, 'v1');
    const seen: { listing: string[]; readme: string; staged: string }[] = [];
    const result = await readPackage(archive, {
      extractTo: target,
      accept: async (_pkg, staged) => {
        seen.push({ listing: await readdir(dir), readme: await readFile(join(staged, 'README.md'), 'utf8'), staged });
        await expect(stat(target)).rejects.toMatchObject({ code: 'ENOENT' });
      },
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.listing).toEqual([basename(seen[0]?.staged ?? '')]);
    expect(dirname(seen[0]?.staged ?? '')).toBe(dir);
    expect(seen[0]?.readme).toBe('# hi\n');
    expect(result.dir).toBe(target);
    expect(await readdir(dir)).toEqual(['v1']);
  });

  it('extractTo: a refusal in accept leaves nothing behind', async () => {
    const dir = await parent('to-refused');
    const error = await rejection(
      readPackage(archive, {
        extractTo: join(dir, 'v1'),
        accept: () => {
          throw new AdcapError('E_SEMANTIC', 'the workflow document is invalid');
        },
      }),
    );
    expect(error).toMatchObject({ code: 'E_SEMANTIC', message: 'the workflow document is invalid' });
    expect(await readdir(dir)).toEqual([]);
  });

  it('extractInto: the files land in the directory itself, left for the caller to rename', async () => {
    const dir = await parent('into');
    const target = join(dir, 'v1.prepared-abc');
    let listing: string[] = [];
    const result = await readPackage(archive, {
      extractInto: target,
      readOnly: true,
      accept: async (_pkg, staged) => {
        expect(staged).toBe(target);
        listing = await readdir(dir);
      },
    });
    expect(listing).toEqual(['v1.prepared-abc']);
    expect(result.dir).toBe(target);
    expect((await readdir(target)).sort()).toEqual(['README.md', 'capability.json', 'docs'].sort());
    expect((await stat(target)).mode & 0o777).toBe(0o555);
  });

  it('extractInto: a refusal removes the directory, and an existing one is refused before reading', async () => {
    const dir = await parent('into-refused');
    const error = await rejection(
      readPackage(archive, {
        extractInto: join(dir, 'v1.prepared-x'),
        readOnly: true,
        accept: () => {
          throw new AdcapError('E_SIGNATURE', 'refused by the caller');
        },
      }),
    );
    expect(error).toMatchObject({ code: 'E_SIGNATURE', message: 'refused by the caller' });
    expect(await readdir(dir)).toEqual([]);
    await mkdir(join(dir, 'taken'));
    expect(await rejection(readPackage(archive, { extractInto: join(dir, 'taken') }))).toMatchObject({ code: 'E_IO' });
    expect(await readdir(join(dir, 'taken'))).toEqual([]);
    expect(await rejection(readPackage(archive, { extractInto: join(dir, 'a'), extractTo: join(dir, 'b') }))).toMatchObject({
      code: 'E_USAGE',
    });
  });
});
