import type { Command } from 'commander';
import { SingleBar } from 'cli-progress';
import { existsSync } from 'node:fs';
import { AdcapError } from '../../errors.js';
import { describePermission, grantString } from '../../permissions/index.js';
import type { ApplyOptions, Arcotheon, InstalledCapability, LifecycleProgress } from '../../store/arcotheon.js';
import { storeOf } from '../../store/store-of.js';
import type { DoctorReport } from '../../store/doctor.js';
import { formatBytes, type Plan } from '../../store/plan.js';
import type { CliContext } from '../context.js';
import { openArcotheon } from '../host.js';
import { skillViews, type SkillView } from '../installed-view.js';
import { updateLines } from '../update-text.js';
import { isCapabilityId } from '../../util/capability-id.js';
import type { AddResult } from '../../add/add.js';
import { addedIds, originText, updateAddedCommand, updateAddedLines } from './add.js';

/**
 * Host commands of the install lifecycle (DESIGN §8): install, list, update, rollback,
 * uninstall, grants, doctor, cache gc. Without --yes, install and update print the plan and ask on
 * the terminal; with no terminal and no --yes they refuse (E_DENIED).
 */
export function register(program: Command, ctx: CliContext): void {
  const { output } = ctx;

  program
    .command('install')
    .description('install capabilities (publisher/name[@range]) or a local .adcap file, with their dependencies')
    .argument(
      '<specs...>',
      'capability ids with optional ranges, e.g. acme/pdf@^1.2, optionally from one remote (examples:acme/pdf), or a path to a .adcap file',
    )
    .option('-y, --yes', 'approve the plan without asking (grants every permission it lists)')
    .option('--allow-unsigned', 'confirm installing an unsigned or unknown-signer local file')
    .option('--prerelease', 'consider prerelease versions')
    .action(async (specs: string[], opts: { yes?: boolean; allowUnsigned?: boolean; prerelease?: boolean }) => {
      const arc = await openArcotheon(ctx);
      const files = specs.filter((s) => s.endsWith('.adcap') || (existsSync(ctx.resolvePath(s)) && !isCapabilityId(s.split('@')[0])));
      if (files.length > 1) throw new AdcapError('E_USAGE', 'Install one local .adcap file at a time.');
      const packages = specs.filter((s) => !files.includes(s));
      const request = {
        packages,
        ...(files[0] === undefined ? {} : { file: ctx.resolvePath(files[0]) }),
        ...(opts.prerelease === true ? { includePrerelease: true } : {}),
      };
      const result = await withProgress(ctx, (onProgress) =>
        arc.install(request, {
          ...approval(ctx, opts.yes === true, 'Install'),
          ...(opts.allowUnsigned === true ? { allowUnsigned: true } : {}),
          onProgress,
        }),
      );
      output.result({ installed: result.installed, plan: planJson(result.plan) }, () =>
        result.installed.length === 0 ? result.plan.report.lines : result.installed.map((i) => `installed ${i.id}@${i.version}`),
      );
    });

  program
    .command('list')
    .description('list installed capabilities')
    .action(async () => {
      const arc = await openArcotheon(ctx);
      const list = await arc.list();
      // Each skill's directory (host contract "Skills"), for hosts and scripts that register them.
      const skills = new Map<string, SkillView[] | null>();
      if (output.json) {
        for (const c of list) {
          skills.set(
            c.id,
            await arc.installedManifest(c.id).then(
              (m) => skillViews(m, storeOf(arc).home.versionDir(c.id, c.version)),
              () => null,
            ),
          );
        }
      }
      output.result(
        list.map((c) => ({
          id: c.id,
          version: c.version,
          status: c.status,
          grants: c.grants,
          explicit: c.explicit,
          history: c.history,
          ...(c.revoked === undefined ? {} : { revoked: c.revoked }),
          ...(c.damaged === undefined ? {} : { damaged: c.damaged }),
          skills: skills.get(c.id) ?? null,
          added: c.source.kind === 'file' ? (c.source.added ?? null) : null,
          disabled: c.disabled ?? null,
          managed: c.managed ?? null,
        })),
        // A revoked install is marked; the registry's reason is in --json and "adcap doctor".
        () =>
          list.length === 0
            ? 'nothing installed; find capabilities with "adcap search"'
            : list.map(
                (c) =>
                  `${c.id}@${c.version}${statusMark(c)}` +
                  `${c.damaged === undefined ? '' : ` (${c.damaged.repair}: run "adcap doctor --fix")`}` +
                  `${c.revoked === undefined ? '' : ' [revoked: update or uninstall it]'}${c.explicit ? '' : ' (dependency)'}` +
                  `${listMarks(c)}  grants: ${c.grants.join(', ') || 'none'}`,
              ),
      );
    });

  program
    .command('update')
    .description('update installed capabilities (all, or the ones named) within the ranges they were installed with')
    .argument('[ids...]', 'capability ids')
    .option('-y, --yes', 'approve the plan without asking, including new permissions')
    .option('--prerelease', 'consider prerelease versions')
    .action(async (ids: string[], opts: { yes?: boolean; prerelease?: boolean }) => {
      const arc = await openArcotheon(ctx);
      // docs/skills.md: a capability brought in with "adcap add" updates from its source (fetched again).
      const added = await addedIds(arc, ids);
      const addedResults: AddResult[] = [];
      for (const id of added) addedResults.push(await updateAddedCommand(ctx, arc, id, opts.yes === true));
      if (added.length > 0 && ids.length > 0 && ids.every((id) => added.includes(id))) {
        output.result({ added: addedResults }, () => addedResults.flatMap(updateAddedLines));
        return;
      }
      if (!output.json) for (const line of addedResults.flatMap(updateAddedLines)) ctx.io.stdout(`${line}\n`);
      const result = await withProgress(ctx, (onProgress) =>
        arc.update(ids.length === 0 ? undefined : ids.filter((id) => !added.includes(id)), {
          ...approval(ctx, opts.yes === true, 'Update'),
          onProgress,
          ...(opts.prerelease === true ? { includePrerelease: true } : {}),
        }),
      );
      output.result(
        {
          applied: result.applied,
          installed: result.installed,
          waiting: result.waiting,
          pinned: result.pinned,
          plan: planJson(result.plan),
        },
        () => updateLines(result),
      );
    });

  program
    .command('rollback')
    .description('go back to the previous installed version, with the grants it had minus any you revoked since')
    .argument('<id>', 'capability id')
    .action(async (id: string) => {
      const arc = await openArcotheon(ctx);
      const done = await arc.rollback(id);
      output.result(done, () => `rolled ${id} back from ${done.from} to ${done.to}`);
    });

  program
    .command('uninstall')
    .description('remove a capability, and dependencies nothing else needs')
    .argument('<id>', 'capability id')
    .action(async (id: string) => {
      const arc = await openArcotheon(ctx);
      const done = await arc.uninstall(id);
      output.result(done, () => done.removed.map((r) => `removed ${r}`));
    });

  program
    .command('grants')
    .description("show a capability's permissions and what is granted; revoke or grant one")
    .argument('<id>', 'capability id')
    .option('--revoke <grant>', 'withdraw a grant, e.g. net:connect:api.example.com (repeatable)', collect, [] as string[])
    .option('--grant <grant>', 'grant a permission the capability declares (repeatable)', collect, [] as string[])
    .action(async (id: string, opts: { revoke: string[]; grant: string[] }) => {
      const arc = await openArcotheon(ctx);
      for (const grant of opts.revoke) await arc.revokeGrant(id, grant);
      for (const grant of opts.grant) await arc.grant(id, grant);
      const { granted, declared } = await arc.grants(id);
      const rows = declared.map((p) => ({
        grant: grantString(p),
        granted: granted.includes(grantString(p)),
        text: describePermission(p),
        reason: p.reason,
      }));
      output.result({ id, granted, permissions: rows }, () =>
        rows.length === 0
          ? `${id} asks for no permissions`
          : rows.map((r) => `${r.granted ? '[x]' : '[ ]'} ${r.text} (${r.grant}) - ${r.reason}`),
      );
    });

  program
    .command('doctor')
    .description('check installed capabilities, the cache and interrupted operations; --fix repairs what it can')
    .option('--fix', 'repair: reinstall damaged files, finish or undo interrupted operations')
    .option('--dry-run', 'with --fix: say what would be repaired, change nothing')
    .action(async (opts: { fix?: boolean; dryRun?: boolean }) => {
      const arc = await openArcotheon(ctx);
      const dryRun = opts.dryRun === true;
      const report = await arc.doctor({ fix: opts.fix === true || dryRun, dryRun });
      output.result(dryRun ? { ...report, dryRun: true } : report, () => doctorLines(report, dryRun));
      if (!report.ok) ctx.setExitCode(1);
    });

  const cache = program.command('cache').description('the content-addressed cache of archives and resources');
  cache
    .command('gc')
    .description('remove cached blobs that no installed version references (keeps what rollback needs)')
    .action(async () => {
      const arc: Arcotheon = await openArcotheon(ctx);
      const result = await arc.gcCache();
      output.result(result, () => `removed ${result.removed.length} blobs (${formatBytes(result.freedBytes)}), kept ${result.kept}`);
    });
}

/** --yes approves; otherwise the plan is printed and the terminal asked; no terminal refuses. */
function approval(ctx: CliContext, yes: boolean, verb: string): Pick<ApplyOptions, 'approve'> {
  return {
    approve: async (plan: Plan) => {
      // DESIGN §8: print the plan (items, versions, permissions, download size), then ask. With
      // --yes a person still sees what they approved; --json keeps stderr for errors only.
      if (yes) {
        if (!ctx.output.json) ctx.io.stderr(`${plan.report.lines.join('\n')}\n${verb}: approved with --yes\n`);
        return true;
      }
      ctx.io.stderr(`${plan.report.lines.join('\n')}\n`);
      const ask = ctx.io.ask;
      if (!ctx.io.stdinIsTTY || ask === undefined) {
        throw new AdcapError(
          'E_DENIED',
          `${verb} needs your approval and there is no terminal to ask on; review the plan above and run again with --yes.`,
        );
      }
      const answer = await ask(`${verb}? [y/N] `);
      return /^y(es)?$/i.test(answer.trim());
    },
  };
}

/** A progress bar on a terminal (not in --json mode); silent otherwise. */
async function withProgress<T>(ctx: CliContext, work: (onProgress: (p: LifecycleProgress) => void) => Promise<T>): Promise<T> {
  if (ctx.io.stderrIsTTY !== true || ctx.output.json) return work(() => undefined);
  const bar = new SingleBar({
    format: '{phase} {item} [{bar}] {percentage}% {done}',
    stream: process.stderr,
    hideCursor: true,
    clearOnComplete: true,
  });
  let started = false;
  try {
    return await work((p) => {
      const payload = { phase: p.phase.padEnd(8), item: p.item ?? '', done: formatBytes(p.done) };
      if (!started) {
        bar.start(p.total ?? 1, p.done, payload);
        started = true;
      } else {
        bar.setTotal(p.total ?? Math.max(p.done, 1));
        bar.update(p.done, payload);
      }
    });
  } finally {
    if (started) bar.stop();
  }
}

function planJson(plan: Plan): Record<string, unknown> {
  return {
    digest: plan.digest,
    items: plan.items.map((i) => ({
      id: i.id,
      version: i.version,
      action: i.action,
      from: i.from ?? null,
      explicit: i.explicit,
      downloadSize: i.downloadSize,
      newPermissions: i.newPermissions,
      source: i.source,
      previousSource: i.previousSource ?? null,
    })),
    versions: plan.versions,
    newPermissions: plan.newPermissions,
    downloadSize: plan.downloadSize,
    warnings: plan.warnings,
    report: plan.report,
  };
}

function doctorLines(report: DoctorReport, dryRun: boolean): string[] {
  const head =
    `checked ${report.checked.packages} capabilities (${report.checked.versions} versions) ` +
    `and ${report.checked.cacheEntries} cached blobs`;
  if (report.problems.length === 0) return [head, 'no problems found', ...(dryRun ? ['dry run: nothing would change'] : [])];
  if (dryRun) {
    const fixable = report.problems.filter((p) => p.fixable);
    return [
      head,
      ...report.problems.map((p) => `${p.fixable ? 'would repair' : 'cannot repair'}: ${p.message}`),
      `dry run: nothing was changed; "adcap doctor --fix" would repair ${fixable.length} of ${report.problems.length} problems`,
    ];
  }
  return [
    head,
    ...report.problems.map(
      (p) =>
        `${p.fixed !== undefined ? 'fixed' : p.fixable ? 'fixable' : 'problem'}: ` +
        `${p.message}${p.fixed !== undefined ? ` (${p.fixed})` : ''}`,
    ),
    report.ok ? 'everything was repaired' : 'problems remain; "adcap doctor --fix" repairs the fixable ones',
  ];
}

/** " [unsigned]", or for a capability brought in with "adcap add": " [added by you from <source> at <commit>]" (docs/skills.md). */
function statusMark(c: InstalledCapability): string {
  if (c.source.kind === 'file' && c.source.added !== undefined) return ` [added by you from ${originText(c.source.added)}]`;
  return c.status === 'ok' ? '' : ` [${c.status}]`;
}

/** " [disabled]", " [disabled by policy]", " [required by policy]" after a list row. */
function listMarks(c: InstalledCapability): string {
  const marks: string[] = [];
  if (c.disabled !== undefined) marks.push(c.disabled.by === 'policy' ? 'disabled by policy' : 'disabled');
  if (c.managed?.required !== undefined) marks.push('required by policy');
  if (c.managed?.deniedGrants !== undefined) marks.push('holds grants the policy denies');
  return marks.map((m) => ` [${m}]`).join('');
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
