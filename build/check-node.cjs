// `npm install` in this repository refuses a Node.js older than 22.12 with one clear line. It runs
// as the root "preinstall" script under whatever Node npm found, so it is plain
// CommonJS in syntax every Node version parses: no const, arrows or template strings.
// sdk/src/cli/node-check.ts is the same check for the adcap bin.
'use strict';
var MINIMUM = [22, 12, 0];

function parse(text) {
  var parts = String(text).replace(/^v/, '').split(/[.-]/);
  var out = [];
  for (var i = 0; i < 3; i++) out.push(parseInt(parts[i], 10) || 0);
  return out;
}

function atLeast(version, minimum) {
  var have = parse(version);
  for (var i = 0; i < 3; i++) {
    if (have[i] !== minimum[i]) return have[i] > minimum[i];
  }
  return true;
}

var version = process.argv[2] || process.versions.node;
if (!atLeast(version, MINIMUM)) {
  process.stderr.write(
    'error: Arcotheon needs Node.js ' +
      MINIMUM[0] +
      '.' +
      MINIMUM[1] +
      ' or newer and this is Node.js ' +
      String(version).replace(/^v/, '') +
      '; get Node.js 22 (npm install -g --prefix ~/node22 node@22, then put ~/node22/bin first on PATH) and run npm install again.\n',
  );
  process.exit(1);
}
