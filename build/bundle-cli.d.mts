// Types of build/bundle-cli.mjs, which test/build/bundle-cli.test.ts imports.
import type { Plugin } from 'esbuild';

/** The CommonJS packages the adcap bundle loads on first use. */
export declare const LAZY_PACKAGES: readonly string[];

/** The esbuild plugin that makes `packages` (default LAZY_PACKAGES) load on first use. */
export declare function lazyPackages(packages?: readonly string[]): Plugin;
