// Types of build/schema-validators.mjs, which test/build/schema-validators.test.ts imports.

/** A generated module: the file, and what it is generated from. */
export interface ValidatorsTarget {
  file: string;
  options: Record<string, unknown>;
  schemas: string[];
  exports: Record<string, string>;
}

export const TARGETS: readonly ValidatorsTarget[];

/** The source of one generated module, as build/schema-validators.mjs writes it. */
export function generatedSource(target: ValidatorsTarget): Promise<string>;
