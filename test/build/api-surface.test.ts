// `npm run api:check` counts the public surface from API Extractor's report and
// fails on an undocumented export, an undocumented member or a forgotten export (build/api-report.mjs). The report below is in
// the exact shape API Extractor writes (sdk/api/sdk.api.md); the counter must see each case.
import { describe, expect, it } from 'vitest';
import { surfaceCounts } from '../../build/api-surface.mjs';

const REPORT = `## API Report File for "@arcotheon/sdk"

\`\`\`ts

// @public
export class Arcotheon {
    constructor(options: ArcotheonOptions);
    // @internal
    readonly cache: ContentCache;
    // Warning: (ae-forgotten-export) The symbol "HomeLayout" needs to be exported by the entry point index.d.ts
    //
    // @internal
    readonly home: HomeLayout;
    list(): Promise<InstalledCapability[]>;
    // Warning: (ae-forgotten-export) The symbol "SearchIndex" needs to be exported by the entry point index.d.ts
    //
    // (undocumented)
    index(): SearchIndex;
}

// @public (undocumented)
export type Access = 'public' | 'entitled';

// @public
export interface AdcapErrorOptions {
    // (undocumented)
    cause?: unknown;
    details?: Readonly<Record<string, unknown>>;
}

// @public (undocumented)
export function isAdcapError(value: unknown, code?: ErrorCode): value is AdcapError;

// Warning: (ae-forgotten-export) The symbol "OfKind" needs to be exported by the entry point index.d.ts
//
// @public
export type BinaryRuntime = OfKind<'binary'>;

// Warnings were encountered during analysis:
//
// /repo/.tmp/api/dts/store/planning.d.ts:32:9 - (ae-forgotten-export) The symbol "AddedOrigin" needs to be exported by index.d.ts

\`\`\`
`;

describe('surfaceCounts', () => {
  it('counts exports, names undocumented exports and members (as Type.member), and counts @internal marks', () => {
    const counts = surfaceCounts(REPORT);
    expect(counts.exports).toBe(5);
    expect(counts.undocumented).toEqual(['Access', 'isAdcapError']);
    expect(counts.undocumentedMembers).toEqual(['Arcotheon.index', 'AdcapErrorOptions.cause']);
    expect(counts.internal).toBe(2);
  });

  it('names forgotten exports, except a type only an @internal member uses', () => {
    expect(surfaceCounts(REPORT).forgotten).toEqual(['SearchIndex', 'OfKind', 'AddedOrigin']);
  });

  it('names each undocumented member after the export it belongs to, whatever its form', () => {
    const members = `
// @public
export class AdcapError extends Error {
    // (undocumented)
    readonly name = "AdcapError";
    // (undocumented)
    get tmpDir(): string;
    documented(): void;
}

// @public
export interface HomeConfig {
    // (undocumented)
    [setting: string]: unknown;
    // Warning: (ae-forgotten-export) The symbol "X" needs to be exported by the entry point index.d.ts
    //
    // (undocumented)
    'adcap-workflow': string;
    // @internal (undocumented)
    hidden: string;
}
`;
    expect(surfaceCounts(members).undocumentedMembers).toEqual([
      'AdcapError.name',
      'AdcapError.tmpDir',
      'HomeConfig.[setting: string]',
      "HomeConfig.'adcap-workflow'",
    ]);
  });

  it('a fully documented report has nothing to report', () => {
    const documented = REPORT.split('\n')
      .filter((line) => !/\(undocumented\)|ae-forgotten-export|^\s*\/\/ *$/.test(line))
      .join('\n');
    expect(surfaceCounts(documented)).toMatchObject({ exports: 5, undocumented: [], undocumentedMembers: [], forgotten: [] });
  });
});
