// repo_info: public facts about a GitHub repository from the GitHub REST API.
//
// Permissions it uses, each declared in capability.json and granted by the user:
//   net:connect:api.github.com  - the only host it talks to (the sandbox enforces this);
//   env:read:GITHUB_TOKEN       - optional; raises the rate limit from 60 to 5,000 requests/hour;
//   storage:data                - keeps the last answer per repository, so an offline run can
//                                 still answer (marked "stale") instead of failing.
// Offline and error cases end in a {"type":"error"} line with a sentence the user can act on.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveTools, ToolError } from './protocol.mjs';

const API = 'https://api.github.com';
const REPO = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})\/[A-Za-z0-9._-]{1,100}$/;

async function repoInfo(input, context) {
  const repo = input.repo.trim().replace(/^https:\/\/github\.com\//, '').replace(/\.git$/, '').replace(/\/$/, '');
  if (!REPO.test(repo)) throw new ToolError(`"${input.repo}" is not a repository name; write it as owner/name, e.g. nodejs/node.`);
  const cacheFile = typeof context.toolDataDir === 'string' ? join(context.toolDataDir, `${repo.replace('/', '__')}.json`) : null;

  const headers = { accept: 'application/vnd.github+json', 'user-agent': 'arcotheon-example-github-repo', 'x-github-api-version': '2022-11-28' };
  const token = process.env.GITHUB_TOKEN;
  if (token) headers.authorization = `Bearer ${token}`;

  let response;
  try {
    response = await fetch(`${API}/repos/${repo}`, { headers, signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    const cached = await readCache(cacheFile);
    if (cached !== null) return { ...cached, stale: true };
    const code = error?.cause?.code;
    const why = error?.name === 'TimeoutError' ? 'it did not answer within 10 seconds' : typeof code === 'string' ? code : (error?.cause?.message || error?.message || 'the connection failed');
    throw new ToolError(`Could not reach api.github.com (${why}); check your internet connection and that this tool's "Connect to api.github.com" permission is granted, then try again.`);
  }
  if (response.status === 404) throw new ToolError(`GitHub has no public repository ${repo} (or the token cannot see it); check the owner and name.`);
  if (response.status === 401) throw new ToolError('GitHub refused the GITHUB_TOKEN (401); create a new token or remove it to use anonymous access.');
  if (response.status === 403 || response.status === 429) {
    const reset = Number(response.headers.get('x-ratelimit-reset'));
    const when = Number.isFinite(reset) && reset > 0 ? ` until ${new Date(reset * 1000).toISOString()}` : '';
    throw new ToolError(`GitHub's rate limit is used up${when}; set GITHUB_TOKEN (and grant "Read the environment variable GITHUB_TOKEN") for a higher limit.`);
  }
  if (!response.ok) throw new ToolError(`GitHub answered ${response.status} ${response.statusText}; try again later.`);

  const data = await response.json();
  const info = {
    fullName: data.full_name,
    description: data.description ?? '',
    url: data.html_url,
    stars: data.stargazers_count,
    forks: data.forks_count,
    openIssues: data.open_issues_count,
    language: data.language ?? null,
    license: data.license?.spdx_id ?? null,
    topics: Array.isArray(data.topics) ? data.topics : [],
    defaultBranch: data.default_branch,
    archived: data.archived === true,
    pushedAt: data.pushed_at,
    fetchedAt: new Date().toISOString(),
    authenticated: Boolean(token),
  };
  await writeCache(cacheFile, info);
  return { ...info, stale: false };
}

async function readCache(file) {
  if (file === null) return null;
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return null;
  }
}

async function writeCache(file, info) {
  if (file === null) return; // storage:data not granted: nothing is kept between runs
  try {
    await mkdir(join(file, '..'), { recursive: true });
    await writeFile(`${file}.tmp`, JSON.stringify(info));
    await rename(`${file}.tmp`, file);
  } catch (error) {
    process.stderr.write(`could not cache the answer: ${error.message}\n`);
  }
}

serveTools({ repo_info: repoInfo });
