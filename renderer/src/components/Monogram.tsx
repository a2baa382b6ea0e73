import { monogramColour, monogramLetters } from '../lib/format.js';

/** The capability's monogram: packages' icon files are never loaded (they are hostile input). */
export function Monogram({ id, name, large = false }: { id: string; name: string; large?: boolean }) {
  return (
    <span className={`monogram${large ? ' large' : ''}`} style={{ background: monogramColour(id) }} aria-hidden="true">
      {monogramLetters(name, id)}
    </span>
  );
}
