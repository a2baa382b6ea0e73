import path from 'node:path';
import type { Command } from 'commander';
import { AdcapError } from '../../errors.js';
import { FileSecretStore, type SecretSource } from '../../run/secrets.js';
import type { CliContext } from '../context.js';

/**
 * Secrets for env:read permissions on the command line: values live in
 * `<home>/secrets.json`, mode 0600, in plain text (the desktop app encrypts with the OS keychain
 * instead), and the CLI says so whenever it stores or uses one.
 *   adcap secret set <id> <VARIABLE>   (the value is read from stdin, never from the command line)
 *   adcap secret rm <id> <VARIABLE>
 *   adcap secret list                  (names only)
 */
function secretsFile(ctx: CliContext): string {
  return path.join(ctx.home(), 'secrets.json');
}

/**
 * Where `adcap run` and `adcap workflow` take granted env:read values from: the CLI's own
 * environment first (as before), else the secrets file, with a note naming the file.
 */
export function cliSecretSource(ctx: CliContext): SecretSource {
  const store = new FileSecretStore(secretsFile(ctx));
  return async ({ capability, tool, variable }) => {
    const fromEnv = ctx.io.env[variable];
    if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
    const stored = await store.get(capability, variable);
    if (stored !== undefined) ctx.output.note(`${variable} for ${capability} ${tool} comes from ${store.file} (plain text, mode 0600)`);
    return stored;
  };
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function register(program: Command, ctx: CliContext): void {
  const secret = program.command('secret').description('values for env:read permissions, kept in <home>/secrets.json (mode 0600)');
  secret
    .command('set')
    .description('store the value of an environment variable a granted tool reads (value on stdin)')
    .argument('<id>', 'installed capability id')
    .argument('<variable>', 'the variable its env:read permission names')
    .action(async (id: string, variable: string) => {
      const value = (
        ctx.io.ask !== undefined && ctx.io.stdinIsTTY ? await ctx.io.ask(`value of ${variable} for ${id}: `) : await readStdin()
      ).replace(/\r?\n$/, '');
      if (value === '') throw new AdcapError('E_USAGE', `No value for ${variable} was given on stdin.`);
      const store = new FileSecretStore(secretsFile(ctx));
      await store.set(id, variable, value);
      ctx.output.result(
        { capability: id, variable, file: store.file },
        () => `stored ${variable} for ${id} in ${store.file} (plain text, readable only by you: mode 0600)`,
      );
    });
  secret
    .command('rm')
    .description('forget a stored value')
    .argument('<id>', 'capability id')
    .argument('<variable>', 'variable name')
    .action(async (id: string, variable: string) => {
      const removed = await new FileSecretStore(secretsFile(ctx)).delete(id, variable);
      ctx.output.result({ capability: id, variable, removed }, () =>
        removed ? `removed ${variable} for ${id}` : `no value of ${variable} was stored for ${id}`,
      );
    });
  secret
    .command('list')
    .description('which values are stored (names only)')
    .action(async () => {
      const store = new FileSecretStore(secretsFile(ctx));
      const entries = await store.list();
      ctx.output.result(entries, () =>
        entries.length === 0 ? `no secrets stored in ${store.file}` : entries.map((e) => `${e.capability} ${e.variable}`).join('\n'),
      );
    });
}
