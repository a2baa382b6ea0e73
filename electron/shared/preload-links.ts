/**
 * The page's own files as a `Link` header of preloads (HTML "Link type modulepreload" and
 * "preload"; RFC 8288), sent with index.html by `arcotheon ui` (electron/web.ts): the browser
 * starts fetching the scripts and the stylesheet as soon as the response's headers arrive, rather
 * than when the window's renderer gets to parse the page, which on a busy machine is a few hundred
 * milliseconds later (docs/ui.md "Fast").
 *
 * The list is read from the built index.html (renderer/vite.config.ts writes it): its module
 * scripts and stylesheets, in order. Only plain relative addresses under assets/ are taken, so
 * nothing in the file can shape the header beyond naming those files.
 */
const ASSET = /^(?:\.\/)?assets\/[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.(?:js|css)$/;
const TAG = /<(script|link)\b([^>]*)>/g;
const attribute = (attributes: string, name: string): string | null => new RegExp(`\\s${name}="([^"]*)"`).exec(attributes)?.[1] ?? null;

export function preloadLinkHeader(html: string): string | null {
  const links: string[] = [];
  for (const [, tag, attributes = ''] of html.matchAll(TAG)) {
    // The same request mode as the tags themselves (crossorigin: CORS with same-origin credentials),
    // so that the browser uses what it preloaded instead of fetching the file again.
    const crossorigin = /\scrossorigin(?:\s|=|$)/.test(attributes);
    if (tag === 'script' && attribute(attributes, 'type') === 'module') {
      const src = attribute(attributes, 'src');
      if (src !== null && ASSET.test(src)) links.push(`<${src}>; rel=modulepreload`);
    } else if (tag === 'link' && attribute(attributes, 'rel') === 'stylesheet') {
      const href = attribute(attributes, 'href');
      if (href !== null && ASSET.test(href)) links.push(`<${href}>; rel=preload; as=style${crossorigin ? '; crossorigin' : ''}`);
    }
  }
  return links.length === 0 ? null : links.join(', ');
}
