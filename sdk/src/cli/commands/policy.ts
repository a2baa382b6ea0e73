import type { Command } from 'commander';
import type { EnablementResult } from '../../store/enablement.js';
import { describePolicy, loadPolicy } from '../../store/policy.js';
import type { PolicyApplyResult } from '../../store/policy-enforce.js';
import type { CliContext } from '../context.js';
import { openArcotheon } from '../host.js';
import { cliListText as safeText } from '../terminal-text.js';

/**
 * The organisation policy (docs/admin.md) on the command line: `adcap disable <id>`, `adcap enable <id>`, `adcap policy` (the
 * organisation policy in force and where it came from) and `adcap policy apply`.
 */
export function register(program: Command, ctx: CliContext): void {
  const { output } = ctx;

  program
    .command('disable')
    .description('switch a capability off without uninstalling it (files, versions, grants and data are kept)')
    .argument('<id>', 'capability id')
    .action(async (id: string) => {
      const arc = await openArcotheon(ctx);
      const done = await arc.disable(id);
      output.result(done, () => enablementLine(done));
    });

  program
    .command('enable')
    .description('switch a disabled capability back on')
    .argument('<id>', 'capability id')
    .action(async (id: string) => {
      const arc = await openArcotheon(ctx);
      const done = await arc.enable(id);
      output.result(done, () => enablementLine(done));
    });

  const policy = program
    .command('policy')
    .description('print the organisation policy in force and where it came from')
    .action(async () => {
      const loaded = await loadPolicy({ env: ctx.io.env, platform: ctx.io.platform });
      output.result(
        loaded === null ? { policy: null, path: null, source: null } : { policy: loaded.policy, path: loaded.path, source: loaded.source },
        // The policy's own strings (organisation, contact) are shown through the terminal filter.
        () => describePolicy(loaded).map(safeText),
      );
    });

  policy
    .command('apply')
    .description(
      'bring this home in line with the policy: disable blocked capabilities, install and update required ones, apply automatic updates',
    )
    .action(async () => {
      const arc = await openArcotheon(ctx);
      const result = await arc.applyPolicy();
      output.result(result, () => applyLines(result));
      if (result.failed.length > 0) ctx.setExitCode(1);
    });
}

function enablementLine(done: EnablementResult): string {
  if (!done.changed) return `${done.id} was already ${done.enabled ? 'enabled' : 'disabled'}`;
  return done.enabled
    ? `enabled ${done.id}`
    : `disabled ${done.id}; its files, versions and grants are kept ("adcap enable ${done.id}" switches it back on)`;
}

function applyLines(result: PolicyApplyResult): string[] {
  if (result.policy === null && result.enabled.length === 0) return ['No organisation policy is in force; nothing to apply.'];
  return [
    ...result.disabled.map((d) => `disabled ${d.id} (blocked: ${safeText(d.rule)})`),
    ...result.enabled.map((id) => `enabled ${id}`),
    ...result.installed.map((i) => `installed ${i.id}@${i.version} (required)`),
    ...result.updated.map((i) => `updated ${i.id} to ${i.version}`),
    ...result.awaitingApproval.map((id) => `an update of ${id} needs new permissions; run "adcap update ${id}" to review it`),
    ...result.failed.map((f) => `could not apply the policy to ${f.id}: ${f.code}: ${safeText(f.message)}`),
    `the home is in line with the policy${result.policy === null ? '' : ` ${safeText(result.policy.path)}`}` +
      (result.failed.length > 0 ? ', except as noted above' : ''),
  ];
}
