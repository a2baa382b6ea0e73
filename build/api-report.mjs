// The API reports of @arcotheon/sdk, written by API Extractor:
//   sdk/api/sdk.api.md           the public exports (sdk/src/index.ts), semver-stable
//   sdk/api/sdk-internal.api.md  `@arcotheon/sdk/internal` (sdk/src/internal.ts), no such promise
// `npm run api:check` (in `npm test`) fails when either differs from what the source exports, and
// prints the difference; `npm run api:update` rewrites them. A change to the public API is then
// a visible change of sdk/api/sdk.api.md in review.
//
// Every public export and every member of one (properties and methods of exported types) is
// documented or lives in `@arcotheon/sdk/internal`, and no public signature names a type index.ts
// does not export. After writing the public report this script counts its exports, "(undocumented)"
// marks and forgotten exports, prints them, and `api:check` fails on an undocumented export, an
// undocumented member or a forgotten export (a type only an `@internal` member uses is not counted:
// it is not part of the public surface). `api:update` prints the same and writes the reports anyway.
//
// Declarations are emitted from sdk/src into .tmp/api/dts (incrementally: a second run compiles
// only what changed), never read from sdk/dist, which may be stale. They are emitted without type
// checking (--noCheck, half the time): `npm run typecheck`, beside this in `npm test`, checks the
// same sources, and the declarations are the same either way.
import { spawnSync } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';
import { surfaceCounts } from './api-surface.mjs';

const update = process.argv.includes('--update');
const root = fileURLToPath(new URL('..', import.meta.url));
const sdk = join(root, 'sdk');
const work = join(root, '.tmp', 'api');
const dts = join(work, 'dts');
const require = createRequire(import.meta.url);

const ENTRIES = [
  // A type a public signature uses but index.ts does not export is written into the report.
  { entry: 'index', report: 'sdk', forgottenExports: true, surface: true },
  // Internal names are used beside the public ones, whose types index.ts exports.
  { entry: 'internal', report: 'sdk-internal', forgottenExports: false, surface: false },
];

/**
 * Forgotten exports allowed, each with why: type helpers whose public unions are derived from a
 * table (the table stays the one source), so the report names the helper; exporting them would put
 * the tables, with their functions, on the public surface.
 */
const FORGOTTEN_ALLOWED = new Map([
  ['OfKind', 'format/runtime-table.ts: InterpreterRuntime, BinaryRuntime, ... are the runtime types of one kind'],
  ['TABLE', 'permissions/table.ts: PermissionId is a key of the permission table'],
]);

const tsc = spawnSync(
  process.execPath,
  [
    require.resolve('typescript/bin/tsc'),
    ...[
      '-p',
      join(sdk, 'tsconfig.build.json'),
      '--outDir',
      dts,
      '--emitDeclarationOnly',
      '--noCheck',
      '--declarationMap',
      'false',
      '--sourceMap',
      'false',
    ],
    // The build info lives beside the declarations, so removing the folder forces a full emit.
    ...['--incremental', '--tsBuildInfoFile', join(dts, '.tsbuildinfo')],
  ],
  { cwd: root, stdio: 'inherit' },
);
if (tsc.status !== 0) {
  console.error('api: the SDK does not parse; fix the errors above first.');
  process.exit(1);
}

await mkdir(join(sdk, 'api'), { recursive: true });
let failed = false;
for (const { entry, report, forgottenExports, surface } of ENTRIES) {
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: sdk,
      mainEntryPointFilePath: join(dts, `${entry}.d.ts`),
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: 'ES2023',
            lib: ['ES2023'],
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            strict: true,
            skipLibCheck: true,
            types: ['node'],
          },
          files: [join(dts, `${entry}.d.ts`)],
        },
      },
      apiReport: { enabled: true, reportFileName: report, reportFolder: join(sdk, 'api'), reportTempFolder: join(work, 'report') },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      newlineKind: 'lf',
      messages: {
        compilerMessageReporting: { default: { logLevel: 'warning' } },
        extractorMessageReporting: {
          default: { logLevel: 'warning', addToApiReportFile: true },
          'ae-forgotten-export': forgottenExports ? { logLevel: 'warning', addToApiReportFile: true } : { logLevel: 'none' },
          'ae-undocumented': { logLevel: 'none' },
          // We do not tag exports @public/@beta: the entry point they come from says what they are.
          'ae-missing-release-tag': { logLevel: 'none' },
          // Nor prefix `@internal` names with an underscore: the internal entry point says what they are.
          'ae-internal-missing-underscore': { logLevel: 'none' },
        },
        // Our doc comments are prose for people, not TSDoc.
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(sdk, 'package.json'),
  });
  const result = Extractor.invoke(config, { localBuild: update, showVerboseMessages: false, printApiReportDiff: !update });
  if (update) {
    console.log(`api: sdk/api/${report}.api.md ${result.apiReportChanged ? 'updated' : 'unchanged'}`);
  } else if (result.apiReportChanged) {
    console.error(
      `api: the exports of sdk/src/${entry}.ts differ from sdk/api/${report}.api.md (the difference is above). ` +
        'If the change is meant, run `npm run api:update` and commit the report.',
    );
  }
  if (!result.succeeded && !(update && result.errorCount === 0)) failed = true;
  if (surface) {
    const written = join(update ? join(sdk, 'api') : join(work, 'report'), `${report}.api.md`);
    const counts = surfaceCounts(await readFile(written, 'utf8'));
    counts.forgotten = counts.forgotten.filter((symbol) => !FORGOTTEN_ALLOWED.has(symbol));
    console.log(
      `api: sdk/api/${report}.api.md: ${counts.exports} exports, ${counts.undocumented.length} undocumented, ` +
        `${counts.undocumentedMembers.length} undocumented members, ` +
        `${counts.forgotten.length} forgotten (besides ${[...FORGOTTEN_ALLOWED.keys()].join(', ')}), ${counts.internal} tagged @internal`,
    );
    const problems = [
      ...(counts.undocumented.length === 0
        ? []
        : [`these exports of sdk/src/${entry}.ts have no doc comment: ${counts.undocumented.join(', ')}`]),
      ...(counts.forgotten.length === 0
        ? []
        : [`public signatures use types sdk/src/${entry}.ts does not export: ${counts.forgotten.join(', ')}`]),
      ...(counts.undocumentedMembers.length === 0
        ? []
        : [`these members of exports of sdk/src/${entry}.ts have no doc comment: ${counts.undocumentedMembers.join(', ')}`]),
    ];
    for (const problem of problems) {
      console.error(
        `api: ${problem}. Document each (TSDoc) or move it to sdk/src/internal.ts (tagged @internal); export a type a ` +
          'public signature uses.',
      );
    }
    if (problems.length > 0 && !update) failed = true;
  }
}
process.exit(failed ? 1 : 0);
