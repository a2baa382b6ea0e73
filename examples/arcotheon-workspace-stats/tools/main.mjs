// Two tools over the files of a workspace folder: count_text (lines, words and bytes per file)
// and find_todos (TODO/FIXME/HACK/XXX comments with their location). Both only read files, under
// the permission fs:read with scope "workspace".
import { displayPath, insideWorkspace, readText, walkFiles, workspaceRoot } from './workspace.mjs';
import { serveTools } from './protocol.mjs';

async function countText(input, context) {
  const root = workspaceRoot(context);
  const maxFiles = input.maxFiles ?? 1000;
  const files = [];
  let skipped = 0;
  for (const start of input.paths ?? ['.']) {
    for await (const file of walkFiles(insideWorkspace(root, start), { extensions: input.extensions, maxFiles: maxFiles - files.length - skipped })) {
      const text = await readText(file.path, file.size);
      if (text === null) {
        skipped++;
        continue;
      }
      const lines = text === '' ? 0 : text.split(/\r\n|\r|\n/).length - (/(\r\n|\r|\n)$/.test(text) ? 1 : 0);
      const words = text.split(/\s+/).filter((w) => w !== '').length;
      files.push({ path: displayPath(root, file.path), lines, words, bytes: file.size });
    }
  }
  const totals = files.reduce((t, f) => ({ files: t.files + 1, lines: t.lines + f.lines, words: t.words + f.words, bytes: t.bytes + f.bytes }), { files: 0, lines: 0, words: 0, bytes: 0 });
  return { files, totals, skipped };
}

async function findTodos(input, context) {
  const root = workspaceRoot(context);
  const tags = input.tags ?? ['TODO', 'FIXME', 'HACK', 'XXX'];
  const maxResults = input.maxResults ?? 200;
  // A tag as a whole word, followed by an optional "(owner)" and ":" -- "TODO(ana): fix".
  const pattern = new RegExp(`\\b(${tags.map((t) => t.replace(/[^A-Za-z0-9_]/g, '')).join('|')})\\b(?:\\(([^)]*)\\))?:?\\s*(.*)$`);
  const items = [];
  let truncated = false;
  outer: for await (const file of walkFiles(insideWorkspace(root, input.path ?? '.'), { extensions: input.extensions, maxFiles: 5000 })) {
    const text = await readText(file.path, file.size);
    if (text === null) continue;
    const lines = text.split(/\r\n|\r|\n/);
    for (let i = 0; i < lines.length; i++) {
      const match = pattern.exec(lines[i]);
      if (match === null) continue;
      if (items.length >= maxResults) {
        truncated = true;
        break outer;
      }
      const item = { path: displayPath(root, file.path), line: i + 1, tag: match[1], text: match[3].replace(/\s*(\*\/|-->)\s*$/, '').trim() };
      if (match[2]) item.owner = match[2];
      items.push(item);
    }
  }
  const byTag = {};
  for (const item of items) byTag[item.tag] = (byTag[item.tag] ?? 0) + 1;
  return { items, byTag, truncated };
}

serveTools({ count_text: countText, find_todos: findTodos });
