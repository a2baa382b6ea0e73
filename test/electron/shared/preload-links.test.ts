import { describe, expect, it } from 'vitest';
import { preloadLinkHeader } from '../../../electron/shared/preload-links.js';

/** The Link header sent with index.html names the page's own files under assets/ and nothing else. */
describe('preloadLinkHeader', () => {
  it("lists the page's module scripts and stylesheets in order, with the stylesheet's request mode", () => {
    const html =
      '<head><meta charset="utf-8"><link rel="icon" href="data:,">' +
      '<script type="module" crossorigin src="./assets/rolldown-runtime-XKy.js"></script>' +
      '<script type="module" crossorigin src="./assets/start-D5e.js"></script>' +
      '<script type="module" crossorigin src="./assets/index-DdM.js"></script>' +
      '<link rel="stylesheet" crossorigin href="./assets/index-Cz6.css">' +
      '<link rel="stylesheet" href="assets/plain.css"></head>';
    expect(preloadLinkHeader(html)).toBe(
      '<./assets/rolldown-runtime-XKy.js>; rel=modulepreload, <./assets/start-D5e.js>; rel=modulepreload, ' +
        '<./assets/index-DdM.js>; rel=modulepreload, <./assets/index-Cz6.css>; rel=preload; as=style; crossorigin, ' +
        '<assets/plain.css>; rel=preload; as=style',
    );
  });

  it('takes nothing that is not a plain file under assets/ (no other host, no way up, nothing that could end the header)', () => {
    for (const src of [
      'https://cdn.example/app.js',
      '//cdn.example/app.js',
      '/assets/app.js',
      './assets/../secret.js',
      './assets/a.js>; rel=preload; as=fetch, <https://evil.example/x',
      './assets/a.js\r\nSet-Cookie: x=1',
      './assets/sub/app.js',
      './assets/app.mjs?x=1',
    ]) {
      expect(preloadLinkHeader(`<script type="module" src="${src}"></script>`), src).toBeNull();
    }
    // Classic scripts and other links are not preloaded.
    expect(preloadLinkHeader('<script src="./assets/a.js"></script><link rel="icon" href="./assets/i.css">')).toBeNull();
    expect(preloadLinkHeader('<!doctype html><title>Arcotheon</title>')).toBeNull();
  });
});
