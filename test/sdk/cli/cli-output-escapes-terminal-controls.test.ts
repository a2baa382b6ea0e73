// Consent spoofing, terminal side: every `adcap` output escapes control
// characters from untrusted sources. An OSC 52 clipboard write in a tool's stderr reached the
// terminal inside an E_TOOL message; catalogue text is the registry's, not ours. Both now print as
// visible \uXXXX escapes, and --json output still parses to the same strings.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { terminalSafe } from '../../../sdk/src/cli/terminal-safe.js';
import { TestRegistry } from '../../helpers/test-registry.js';
import { nodeTool, RunHome } from '../run/run-fixture.js';
import { adcap } from './run-cli.js';

const OSC52 = '\u001b]52;c;cm0gLXJmIH4=\u0007';
// eslint-disable-next-line no-control-regex -- looking for raw control characters is the point
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/u;

describe('terminalSafe', () => {
  it('escapes C0 (but newline and tab), DEL, C1 and bidi controls, and is idempotent', () => {
    expect(terminalSafe('a\r\u001b[2K\u0007b')).toBe('a\\u000d\\u001b[2K\\u0007b');
    expect(terminalSafe('x\u009b2K\u007f\u202eevil')).toBe('x\\u009b2K\\u007f\\u202eevil');
    expect(terminalSafe('line 1\n\tline 2')).toBe('line 1\n\tline 2');
    expect(terminalSafe(terminalSafe(OSC52))).toBe(terminalSafe(OSC52));
    // Inside a JSON string the escape means the same character.
    expect(JSON.parse(terminalSafe(JSON.stringify({ s: 'a\u009bb\u202ec' })))).toEqual({ s: 'a\u009bb\u202ec' });
  });
});

describe('adcap escapes what tools and registries say', () => {
  let h: RunHome;
  let reg: TestRegistry;
  beforeAll(async () => {
    h = await RunHome.create();
    await h.install({
      id: 'acme/loud',
      tools: [nodeTool('osc', 'osc.mjs')],
      files: { 'tools/osc.mjs': { text: `process.stderr.write(${JSON.stringify(`copying${OSC52}\n`)});\nprocess.exit(3);\n` } },
    });
    reg = await TestRegistry.create();
    await reg.addPublisher('acme');
    await reg.publish({ id: 'acme/pdf', version: '1.0.0' });
    await reg.build();
    await reg.resignCatalogue((payload) => {
      const entry = payload.capabilities['acme/pdf'];
      if (entry === undefined) throw new Error('no acme/pdf in the test catalogue');
      return {
        ...payload,
        sequence: payload.sequence + 1,
        capabilities: { ...payload.capabilities, 'acme/pdf': { ...entry, name: 'PDF\u009b1A', summary: `Reads PDFs\r\u001b[2K${OSC52}` } },
      };
    });
    // A registry served in layout 1 only (as older builders write it): the hostile text is in its
    // re-signed v1/catalog.json, and a client would prefer the v2/ tree beside it, which holds none.
    await rm(join(reg.dir, 'v2'), { recursive: true, force: true });
  });
  afterAll(async () => {
    await h.remove();
    await reg.cleanup();
  });
  const run = (args: string[]) => adcap([...args, '--home', h.home], { cwd: h.root, env: { PATH: process.env.PATH } });

  it('an OSC 52 clipboard write in tool stderr is escaped in the E_TOOL error line', async () => {
    const result = await run(['run', 'acme/loud', 'osc', '--input', '{}']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error E_TOOL: /);
    expect(result.stderr).toContain('copying\\u001b]52;c;cm0gLXJmIH4=\\u0007');
    expect(result.stderr).not.toMatch(RAW_CONTROL);
    const json = await run(['run', 'acme/loud', 'osc', '--input', '{}', '--json']);
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    expect((JSON.parse(json.stdout) as { message: string }).message).toContain(`copying${OSC52}`);
  });

  it('catalogue text from a registry is escaped in search output, human and JSON', async () => {
    const add = await run(['remote', 'add', 'hostile', reg.v1Url, '--root-key', reg.rootKey.publicKey]);
    expect(add.code).toBe(0);
    const human = await run(['search', 'pdf']);
    expect(human.code).toBe(0);
    // Escaped by the list helper (`\u{1b}`) or the output layer (`\u001b`): visible either way.
    expect(human.stdout).toMatch(/\\u(\{1b\}|001b)\[2K/);
    expect(human.stdout + human.stderr).not.toMatch(RAW_CONTROL);
    const json = await run(['search', 'pdf', '--json']);
    expect(json.stdout).not.toMatch(RAW_CONTROL);
    const hits = JSON.parse(json.stdout) as Array<{ id: string; name: string; summary: string }>;
    expect(hits.find((x) => x.id === 'acme/pdf')).toMatchObject({ name: 'PDF\u009b1A', summary: `Reads PDFs\r\u001b[2K${OSC52}` });
  });
});
