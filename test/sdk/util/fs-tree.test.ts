import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { removeTree } from '../../../sdk/src/util/fs-tree.js';

let work: string;
beforeEach(async () => {
  work = await mkdtemp(join(tmpdir(), 'adcap-fs-tree-'));
});
afterEach(async () => {
  await chmod(work, 0o755).catch(() => undefined);
  await rm(work, { recursive: true, force: true });
});

describe('removeTree (the one copy, util/fs-tree.ts)', () => {
  it('removes a tree whose folders were made read-only (installs, DESIGN §6; what a tool leaves in its tmp)', async () => {
    const tree = join(work, 'tree');
    await mkdir(join(tree, 'a', 'b'), { recursive: true });
    await writeFile(join(tree, 'a', 'b', 'file.txt'), 'x');
    await chmod(join(tree, 'a', 'b', 'file.txt'), 0o444);
    await chmod(join(tree, 'a', 'b'), 0o555);
    await chmod(join(tree, 'a'), 0o555);
    await chmod(tree, 0o555);
    await removeTree(tree);
    expect(await readdir(work)).toEqual([]);
  });

  it('is fine with a tree that does not exist', async () => {
    await expect(removeTree(join(work, 'missing'))).resolves.toBeUndefined();
  });
});
