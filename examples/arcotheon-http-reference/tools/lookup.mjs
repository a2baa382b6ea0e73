// lookup_http: answers questions about HTTP status codes, headers and methods from a shard set.
//
// The knowledge lives in a remote shard-set resource "http-kb" (spec §9): the host hands this tool
// the verified shard map (context.resources["http-kb"]); the map lists every shard with its
// SHA-256, plus a routing vocabulary. The tool decides from the query which shards it needs and
// asks the host for those only ({"type":"shard"} messages, spec §7). The host fetches, verifies
// and caches them, so a question about "404" downloads one small shard, not the whole set.
import { readFile } from 'node:fs/promises';
import { serveTools, ToolError } from './protocol.mjs';

const RESOURCE = 'http-kb';
const STOP = new Set(['a', 'an', 'the', 'and', 'or', 'of', 'to', 'in', 'for', 'on', 'with', 'is', 'it', 'be', 'by', 'as', 'at', 'what', 'does', 'do', 'how', 'i', 'my', 'me', 'should', 'when', 'why', 'mean', 'means', 'use', 'get']);

function words(text) {
  return (text.toLowerCase().match(/[a-z0-9-]+/g) ?? []).filter((w) => !STOP.has(w));
}

/** Looks a word up in the vocabulary as it is, then without a plural "s". */
function shardsForWord(terms, word) {
  if (Object.hasOwn(terms, word)) return terms[word];
  if (word.endsWith('s') && Object.hasOwn(terms, word.slice(0, -1))) return terms[word.slice(0, -1)];
  return [];
}

/** The shards this query needs, most relevant first: status-code classes always, then by word hits. */
export function routeQuery(map, query, maxShards) {
  const routing = { statusClasses: map.statusClasses ?? {}, terms: map.terms ?? {} };
  const codes = [...new Set(query.match(/\b[1-5]\d\d\b/g) ?? [])];
  const chosen = new Set();
  for (const code of codes) for (const path of routing.statusClasses[code[0]] ?? []) chosen.add(path);
  const hits = new Map();
  for (const word of new Set(words(query))) {
    for (const path of shardsForWord(routing.terms, word)) hits.set(path, (hits.get(path) ?? 0) + 1);
  }
  const ranked = [...hits.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([path]) => path);
  for (const path of ranked) {
    if (chosen.size >= Math.max(maxShards, codes.length)) break;
    chosen.add(path);
  }
  return { codes, shards: [...chosen] };
}

function score(entry, codes, queryWords) {
  let total = codes.includes(entry.id) ? 100 : 0;
  const terms = new Set(entry.terms.flatMap(words));
  const title = new Set(words(entry.title));
  const text = new Set(words(entry.text));
  for (const word of queryWords) {
    const stem = word.endsWith('s') ? word.slice(0, -1) : word;
    if (terms.has(word) || terms.has(stem)) total += 3;
    if (title.has(word) || title.has(stem)) total += 2;
    if (text.has(word) || text.has(stem)) total += 1;
  }
  return total;
}

async function lookupHttp(input, context, host) {
  const mapPath = context.resources?.[RESOURCE];
  if (typeof mapPath !== 'string') throw new ToolError(`The host did not provide the "${RESOURCE}" resource; reinstall the capability or check the host's resource support.`);
  const map = JSON.parse(await readFile(mapPath, 'utf8'));
  const { codes, shards } = routeQuery(map, input.query, input.maxShards ?? 2);
  if (shards.length === 0) {
    const examples = Object.keys(map.terms ?? {}).filter((_, i) => i % 15 === 0).slice(0, 10);
    return { query: input.query, answers: [], shardsUsed: [], shardCount: map.shards.length, hint: `Nothing in the HTTP reference matches; ask about a status code (e.g. 404) or a topic such as ${examples.join(', ')}.` };
  }
  const queryWords = [...new Set(words(input.query))];
  const answers = [];
  for (const shard of shards) {
    const local = await host.shard(RESOURCE, shard); // verified local path from the host's cache
    for (const line of (await readFile(local, 'utf8')).split('\n')) {
      if (line.trim() === '') continue;
      const entry = JSON.parse(line);
      const points = score(entry, codes, queryWords);
      if (points > 0) answers.push({ id: entry.id, title: entry.title, text: entry.text, shard, score: points });
    }
  }
  answers.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  return { query: input.query, answers: answers.slice(0, input.limit ?? 3), shardsUsed: shards, shardCount: map.shards.length };
}

serveTools({ lookup_http: lookupHttp });
