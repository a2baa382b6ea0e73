/**
 * The one capability-id grammar (spec §3.1, DESIGN §3): `publisher/name`, each part 1-64
 * lowercase letters and digits in runs joined by single hyphens. Skill and folder names use the
 * same part grammar. Every check of an id, a part or a name in the SDK goes through here.
 */

/** One part of an id (a publisher or a capability name); the length is checked by isIdPart. */
export const ID_PART_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_ID_PART_LENGTH = 64;

/** True for a publisher, a capability name or a skill name of 1-64 characters. */
export function isIdPart(value: unknown): value is string {
  return typeof value === 'string' && value.length >= 1 && value.length <= MAX_ID_PART_LENGTH && ID_PART_PATTERN.test(value);
}

/** `publisher/name` split into its parts, or null when `id` is not a capability id. */
export function splitCapabilityId(id: unknown): { publisher: string; name: string } | null {
  if (typeof id !== 'string') return null;
  const parts = id.split('/');
  const [publisher, name] = parts;
  if (parts.length !== 2 || !isIdPart(publisher) || !isIdPart(name)) return null;
  return { publisher, name };
}

/** Whether `value` is a capability id `publisher/name` (DESIGN §3). */
export function isCapabilityId(value: unknown): boolean {
  return splitCapabilityId(value) !== null;
}

/** The id part closest to `text` (lowercase, runs of other characters become one hyphen), or `fallback`. */
export function toIdPart(text: string, fallback: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, MAX_ID_PART_LENGTH)
    .replace(/-+$/, '');
  return isIdPart(slug) ? slug : fallback;
}

/** A display name from an id part: `pdf-tools` -> `Pdf Tools`. */
export function idPartTitle(part: string): string {
  return part
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}
