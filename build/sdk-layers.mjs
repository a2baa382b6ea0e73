// The SDK's layers (DESIGN §2), lowest first: a module may import only from its own layer or a
// lower one. One list for the lint rules that enforce them (eslint.config.js) and the import-graph
// report that measures them (build/import-graph.mjs). `errors` is sdk/src/errors.ts.
export const SDK_LAYERS = [
  ['util', 'errors'],
  ['format', 'permissions'],
  ['trust'],
  ['resolve', 'cache', 'sandbox'],
  ['registry'],
  ['store'],
  // adcap add: a source staged, built, signed with the user's own key and installed through the store.
  ['add'],
  ['run'],
  ['cli'],
];
