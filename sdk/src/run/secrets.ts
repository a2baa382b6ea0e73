/**
 * Secrets for `env:read` permissions (DESIGN §5: "the app asks you for its value").
 * A host supplies values through a `SecretSource`; `runTool` asks it only for the variables the
 * running tool declares in an `env:read:<NAME>` permission that is granted, per capability and
 * tool, so a value reaches only the tool whose grant names it. Values are never logged, never
 * audited (the audit log keeps input and output digests only) and never part of an error.
 *
 * Stores: the desktop app keeps values encrypted with Electron's safeStorage (electron/main);
 * the CLI keeps them in `<home>/secrets.json`, mode 0600 (FileSecretStore), and says so.
 */
import { readFile } from 'node:fs/promises';
import { AdcapError } from '../errors.js';
import { writeJsonAtomic } from '../util/fs-atomic.js';
import { isCapabilityId } from '../util/capability-id.js';

/** What a tool run asks for: one variable, for one tool of one capability. */
export interface SecretRequest {
  /** The id of the capability whose tool asks. */
  capability: string;
  /** Its installed version. */
  version: string;
  /** The tool about to run. */
  tool: string;
  /** The environment variable's name, one the tool declares and the user granted (env:read). */
  variable: string;
}

/** Resolves a granted variable's value; null or undefined leaves the variable unset. */
export type SecretSource = (request: SecretRequest) => Promise<string | null | undefined>;

/** Where values are kept between runs, keyed by capability id and variable name. */
export interface SecretStore {
  /** The stored value of `variable` for `capability`; undefined when there is none. */
  get(capability: string, variable: string): Promise<string | undefined>;
  /** Stores a value, replacing any earlier one. */
  set(capability: string, variable: string, value: string): Promise<void>;
  /** True when there was a value to remove. */
  delete(capability: string, variable: string): Promise<boolean>;
  /** Which variables have values (names only, never values). */
  list(): Promise<Array<{ capability: string; variable: string }>>;
}

/** DESIGN §5: an env:read scope names one variable. */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The variables of a tool's declared permissions (each covered by a grant) that are env:read. */
export function envReadVariables(declared: readonly string[]): string[] {
  const names = new Set<string>();
  for (const permission of declared) {
    if (!permission.startsWith('env:read:')) continue;
    const name = permission.slice('env:read:'.length);
    if (VARIABLE_NAME.test(name)) names.add(name);
  }
  return [...names].sort();
}

/** The environment for one tool: only its granted variables, each asked of `source`. */
export async function secretEnv(
  source: SecretSource,
  base: Omit<SecretRequest, 'variable'>,
  variables: readonly string[],
): Promise<Record<string, string>> {
  const env: Record<string, string> = {};
  for (const variable of variables) {
    const value = await source({ ...base, variable });
    if (typeof value === 'string' && value !== '') env[variable] = value;
  }
  return env;
}

const KEY_SEPARATOR = ' ';
const keyOf = (capability: string, variable: string): string => `${capability}${KEY_SEPARATOR}${variable}`;

function checkNames(capability: string, variable: string): void {
  if (!isCapabilityId(capability)) {
    throw new AdcapError('E_USAGE', `"${capability.slice(0, 80)}" is not a capability id (publisher/name).`);
  }
  if (!VARIABLE_NAME.test(variable)) throw new AdcapError('E_USAGE', `"${variable.slice(0, 80)}" is not an environment variable name.`);
}

/**
 * Values in one JSON file, `{ "version": 1, "values": { "<id> <VARIABLE>": "value" } }`, written
 * atomically with mode 0600 (readable by the user only). Plain text on disk: the CLI says so when
 * it stores or uses a value; the desktop app encrypts instead.
 */
export class FileSecretStore implements SecretStore {
  constructor(
    /** The JSON file the values are kept in (written atomically, mode 0600). */
    readonly file: string,
  ) {}

  async #read(): Promise<Record<string, string>> {
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new AdcapError('E_IO', `The secrets file ${this.file} could not be read: ${(error as Error).message}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new AdcapError('E_JSON', `The secrets file ${this.file} is not valid JSON; fix or remove it.`);
    }
    const values = (parsed as { values?: unknown }).values;
    if (typeof values !== 'object' || values === null || Array.isArray(values))
      throw new AdcapError('E_JSON', `The secrets file ${this.file} has no "values" object; fix or remove it.`);
    return Object.fromEntries(Object.entries(values).filter((e): e is [string, string] => typeof e[1] === 'string'));
  }

  async #write(values: Record<string, string>): Promise<void> {
    await writeJsonAtomic(this.file, { version: 1, values }, { mode: 0o600 });
  }

  /** The stored value of `variable` for `capability`; undefined when there is none (E_JSON when the file is damaged). */
  async get(capability: string, variable: string): Promise<string | undefined> {
    return (await this.#read())[keyOf(capability, variable)];
  }

  /** Stores a value (one non-empty line, else E_USAGE) atomically in the 0600 file. */
  async set(capability: string, variable: string, value: string): Promise<void> {
    checkNames(capability, variable);
    if (value === '' || /[\r\n\0]/.test(value)) throw new AdcapError('E_USAGE', `The value of ${variable} must be one non-empty line.`);
    const values = await this.#read();
    values[keyOf(capability, variable)] = value;
    await this.#write(values);
  }

  /** Removes a value; true when there was one. */
  async delete(capability: string, variable: string): Promise<boolean> {
    const values = await this.#read();
    const key = keyOf(capability, variable);
    if (!(key in values)) return false;
    delete values[key];
    await this.#write(values);
    return true;
  }

  /** Which variables have values, sorted by capability and variable (names only, never values). */
  async list(): Promise<Array<{ capability: string; variable: string }>> {
    return Object.keys(await this.#read())
      .map((key) => {
        const [capability = '', variable = ''] = key.split(KEY_SEPARATOR);
        return { capability, variable };
      })
      .sort((a, b) => (a.capability === b.capability ? a.variable.localeCompare(b.variable) : a.capability.localeCompare(b.capability)));
  }
}
