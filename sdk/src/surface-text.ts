/**
 * One sentence per surface for the errors whose advice depends on where it is read (DESIGN §9: "a
 * sentence a person can act on"). The SDK's message speaks to a host's developer and names API
 * calls; the `adcap` command's names commands and flags; the manager UI's names buttons and
 * screens, and never a terminal command. An error that carries a `reason` is worded from this
 * table on each surface; every other error reads the same everywhere, and so names none of them.
 *
 * The table is keyed by code and cause: `reason` says which of the ways to get that code it is.
 * test/sdk/surface-text.test.ts renders every entry and fails when CLI or UI text names an SDK
 * identifier or UI text names a terminal command.
 */
import { AdcapError, type ErrorCode } from './errors.js';

/** Where a message is read: the `adcap` command, the manager UI, or a host's code through the SDK. */
export type Surface = 'cli' | 'ui' | 'sdk';

/** The causes whose advice differs per surface, each with the code it is raised with by default. */
export const ERROR_REASONS = {
  'disabled-by-user': 'E_DISABLED',
  'disabled-not-linked': 'E_DISABLED',
  'unsigned-needs-confirmation': 'E_DENIED',
  'entitlement-without-authorizer': 'E_ENTITLEMENT',
  'remote-never-read': 'E_NOT_FOUND',
  'registry-unreachable': 'E_DOWNLOAD',
  'workspace-not-absolute': 'E_USAGE',
  'tool-crashed': 'E_TOOL',
  'tool-reported-error': 'E_TOOL',
  'installed-files-changed': 'E_MISSING',
  'dependency-missing': 'E_NOT_INSTALLED',
} as const satisfies Record<string, ErrorCode>;

export type ErrorReason = keyof typeof ERROR_REASONS;

type Details = Readonly<Record<string, unknown>>;

interface ReasonText {
  /** The sentence for each surface, from the error's details. */
  sdk(details: Details): string;
  cli(details: Details): string;
  ui(details: Details): string;
  /** The next step the UI shows beneath the sentence (docs/ui.md "Failure"). */
  uiNext: string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : String(value ?? ''));

const REASON_TEXT: Record<ErrorReason, ReasonText> = {
  'disabled-by-user': {
    sdk: (d) => `${text(d['id'])} is disabled, so its tools do not run. Enable it with arc.enable("${text(d['id'])}").`,
    cli: (d) => `${text(d['id'])} is disabled, so its tools do not run. Enable it with "adcap enable ${text(d['id'])}".`,
    ui: (d) => `${text(d['id'])} is switched off, so its tools do not run.`,
    uiNext: 'Switch it on with Enabled on the Installed screen, then run again.',
  },
  'disabled-not-linked': {
    sdk: (d) =>
      `${text(d['id'])} is disabled, so its skills are not linked into agents; enable it with arc.enable("${text(d['id'])}") first.`,
    cli: (d) =>
      `${text(d['id'])} is disabled, so its skills are not linked into agents; ` +
      `enable it with "adcap enable ${text(d['id'])}" first (its earlier links come back then).`,
    ui: (d) => `${text(d['id'])} is switched off, so its skills are not linked into agents.`,
    uiNext: 'Switch it on with Enabled on the Installed screen; its earlier links come back then.',
  },
  'unsigned-needs-confirmation': {
    sdk: (d) =>
      `${text(d['packages'])} is ${text(d['trust'])}; installing it needs your explicit extra confirmation ` +
      '(pass allowUnsigned: true to install()).',
    cli: (d) =>
      `${text(d['packages'])} is ${text(d['trust'])}; installing it needs your explicit extra confirmation: ` +
      'run again with --allow-unsigned.',
    ui: (d) => `${text(d['packages'])} is ${text(d['trust'])}, so it needs your explicit confirmation before it is installed.`,
    uiNext: 'Tick "I trust this file" in the install dialog only if you made it or fully trust where it came from.',
  },
  'entitlement-without-authorizer': {
    sdk: (d) =>
      `${text(d['what'])} is an entitled download and this host passed no authorize callback, ` +
      'so it cannot obtain access; pass authorize in the Arcotheon options (host contract "Free and Pro").',
    cli: (d) =>
      `${text(d['what'])} is an entitled download, and the adcap command has no sign-in, so it cannot ` +
      'install or run entitled content; use an app that can authorise entitled downloads.',
    ui: (d) =>
      `${text(d['what'])} needs a licence from its publisher, and this app cannot sign in to publishers, so it cannot be used here.`,
    uiNext: 'Use an app that can sign in to the publisher, or choose a capability without a licence.',
  },
  'remote-never-read': {
    sdk: (d) => `Remote "${text(d['remote'])}" has no verified catalogue yet; call arc.refreshRemotes() while online.`,
    cli: (d) => `Remote "${text(d['remote'])}" has no verified catalogue yet; run "adcap remote update ${text(d['remote'])}" while online.`,
    ui: (d) => `The registry "${text(d['remote'])}" has not been read yet.`,
    uiNext: 'Connect to the internet, then press Refresh all in Settings.',
  },
  'registry-unreachable': {
    sdk: (d) =>
      `Remote "${text(d['remote'])}" could not be reached (${text(d['cause'])}); its last verified catalogue stays in use. ` +
      'Call arc.refreshRemotes() again when it can be reached.',
    cli: (d) =>
      `Remote "${text(d['remote'])}" could not be reached (${text(d['cause'])}); its last verified catalogue stays in use. ` +
      `Run "adcap remote update ${text(d['remote'])}" again when it can be reached.`,
    ui: (d) => `The registry "${text(d['remote'])}" could not be reached, so its catalogue was not checked: ${text(d['cause'])}`,
    uiNext: 'Check the internet connection, then press Refresh beside the registry in Settings.',
  },
  'workspace-not-absolute': {
    sdk: (d) => `The workspace "${text(d['path'])}" is not an absolute path; pass the full path of the folder.`,
    cli: (d) => `The workspace "${text(d['path'])}" is not a folder path this command can use; give the full path with --workspace.`,
    ui: (d) => `"${text(d['path'])}" is not the full path of a folder.`,
    uiNext: 'Press Choose folder… and pick the folder, or type its full path (it starts with / or a drive letter).',
  },
  'tool-crashed': {
    sdk: (d) => crashSentence(d),
    cli: (d) => crashSentence(d),
    ui: (d) => crashSentence(d),
    uiNext: 'This is a fault in the tool, not in your input: tell its publisher, with the details below.',
  },
  'tool-reported-error': {
    sdk: (d) => `The tool ${text(d['tool'])} reported an error: ${text(d['toolMessage'])}`,
    cli: (d) => `The tool ${text(d['tool'])} reported an error: ${text(d['toolMessage'])}`,
    ui: (d) => `The tool ${text(d['tool'])} reported an error: ${text(d['toolMessage'])}`,
    uiNext: 'The tool reported a failure; check its input and run again.',
  },
  'installed-files-changed': {
    sdk: (d) => `${changedWhat(d)} was changed or removed after installation; repair it with arc.doctor({ fix: true }).`,
    cli: (d) => `${changedWhat(d)} was changed or removed after installation; repair it with "adcap doctor --fix".`,
    ui: (d) => `${changedWhat(d)} was changed or removed after installation.`,
    uiNext: 'Press Repair on the Health screen: it reinstalls the files from the signed package.',
  },
  'dependency-missing': {
    sdk: (d) =>
      `${text(d['id'])} needs ${text(d['dependency'])}, which is not installed; install it, or repair with arc.doctor({ fix: true }).`,
    cli: (d) => `${text(d['id'])} needs ${text(d['dependency'])}, which is not installed; run "adcap install ${text(d['dependency'])}".`,
    ui: (d) => `${text(d['id'])} needs ${text(d['dependency'])}, which is not installed.`,
    uiNext: `Install the capability it needs from Discover, then run again.`,
  },
};

function changedWhat(d: Details): string {
  return typeof d['id'] === 'string' ? `${text(d['what'])} of ${d['id']}` : text(d['what']);
}

function crashSentence(d: Details): string {
  const how =
    d['signal'] !== undefined && d['signal'] !== null ? `was killed by ${text(d['signal'])}` : `exited with code ${text(d['exitCode'])}`;
  const last = text(d['lastError']);
  return `The tool ${text(d['tool'])} ${how} without sending a result${last === '' ? '' : `; its last error output: ${last}`}.`;
}

/**
 * The error for one of the causes in the table: its code, the SDK's sentence as the message, the
 * details every surface words it from, and the reason itself.
 */
export function reasonError(reason: ErrorReason, details: Details, options: { cause?: unknown; code?: ErrorCode } = {}): AdcapError {
  return new AdcapError(options.code ?? ERROR_REASONS[reason], REASON_TEXT[reason].sdk(details), {
    ...(options.cause === undefined ? {} : { cause: options.cause }),
    details: { ...details, reason },
  });
}

/** The reason an error was raised for, when it is one of the table's. */
export function errorReason(error: AdcapError): ErrorReason | undefined {
  const reason = error.details['reason'];
  return typeof reason === 'string' && Object.hasOwn(REASON_TEXT, reason) ? (reason as ErrorReason) : undefined;
}

/** The sentence for `surface`: the table's when the error has a reason, else its own message. */
export function surfaceMessage(error: AdcapError, surface: Surface): string {
  const reason = errorReason(error);
  return reason === undefined ? error.message : REASON_TEXT[reason][surface](error.details);
}

/** The UI's next step for an error with a reason (the UI keeps its own per code otherwise). */
export function uiNextStep(error: AdcapError): string | undefined {
  const reason = errorReason(error);
  return reason === undefined ? undefined : REASON_TEXT[reason].uiNext;
}

/** Every entry rendered for every surface from `details` (for the test that reads them all). */
export function renderAllReasons(
  details: (reason: ErrorReason) => Details,
): Array<{ reason: ErrorReason; surface: Surface | 'uiNext'; text: string }> {
  const out: Array<{ reason: ErrorReason; surface: Surface | 'uiNext'; text: string }> = [];
  for (const reason of Object.keys(REASON_TEXT) as ErrorReason[]) {
    const entry = REASON_TEXT[reason];
    for (const surface of ['sdk', 'cli', 'ui'] as const) out.push({ reason, surface, text: entry[surface](details(reason)) });
    out.push({ reason, surface: 'uiNext', text: entry.uiNext });
  }
  return out;
}
