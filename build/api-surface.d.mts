// Types of build/api-surface.mjs, which test/build/api-surface.test.ts imports.

/** The public surface as an API report shows it (build/api-surface.mjs). */
export interface SurfaceCounts {
  /** Top-level declarations. */
  exports: number;
  /** Names of the top-level declarations without a doc comment. */
  undocumented: string[];
  /** Members of exported types without a doc comment (members tagged @internal not counted). */
  undocumentedMembers: number;
  /** Types public signatures use that the entry point does not export. */
  forgotten: string[];
  /** Declarations and members tagged @internal. */
  internal: number;
}

export function surfaceCounts(text: string): SurfaceCounts;
