// The public surface of @arcotheon/sdk as its API report (sdk/api/sdk.api.md, written by API
// Extractor) shows it, counted for `npm run api:check` (build/api-report.mjs).

/**
 * The public surface as an API report shows it: exports, undocumented ones (top-level exports by
 * name, members as `Type.member`), forgotten exports (by symbol, except those only `@internal`
 * members use) and members tagged `@internal`.
 */
export function surfaceCounts(text) {
  const lines = text.split('\n');
  const declaration = /^export (?:declare )?(?:abstract )?(?:class|function|const|interface|type|enum|namespace|let|var) ([A-Za-z0-9_$]+)/;
  let exports = 0;
  const undocumented = [];
  const undocumentedMembers = [];
  let owner = '';
  const forgotten = new Set();
  let internal = 0;
  lines.forEach((line, i) => {
    const declared = declaration.exec(line);
    if (declared !== null) {
      exports += 1;
      owner = declared[1];
    }
    if (line.startsWith('// @public (undocumented)')) undocumented.push(declaration.exec(lines[i + 1] ?? '')?.[1] ?? lines[i + 1]);
    else if (/^\s+\/\/ .*\(undocumented\)/.test(line) && !line.includes('@internal')) {
      // The member is the first line below its comment lines: `name`, `readonly name`, `get name()`, `[key: string]`.
      let next = i + 1;
      while (/^\s*\/\//.test(lines[next] ?? '')) next += 1;
      const member = /^\s+(?:(?:readonly|static|get|set|protected|abstract) )*(\[[^\]]*\]|['"]?[A-Za-z0-9_$-]+['"]?)/.exec(
        lines[next] ?? '',
      );
      undocumentedMembers.push(`${owner}.${member?.[1] ?? (lines[next] ?? '').trim()}`);
    }
    if (/^\s*\/\/ @internal/.test(line)) internal += 1;
    const symbol = /\(ae-forgotten-export\) The symbol "([^"]+)"/.exec(line)?.[1];
    if (symbol === undefined) return;
    let next = i + 1;
    while (/^\s*\/\/(?: Warning:.*| *)$/.test(lines[next] ?? '')) next += 1;
    if (!/^\s*\/\/ @internal/.test(lines[next] ?? '')) forgotten.add(symbol);
  });
  return { exports, undocumented, undocumentedMembers, forgotten: [...forgotten], internal };
}
