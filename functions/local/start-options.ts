import type { WebhookTiming } from './stack';

/**
 * The options of `npm start` (`bin/local.ts`), parsed from its arguments:
 * - `--allow-loopback-outbound`: webhooks and workflow HTTP actions may reach receivers on this machine;
 * - `--exit-with-parent`: stop when standard input closes;
 * - `--webhook-retry-base`, `--webhook-retry-cap`, `--webhook-retry-window`, `--webhook-disable-after`:
 *   the webhook timing (`LOCAL_WEBHOOK_TIMING` by default), each a duration such as `30`, `30s`, `5m` or
 *   `2h`, given as `--name value` or `--name=value`.
 * - `--schedule-every`: every workflow schedule is due this often (a duration) instead of by its expression,
 *   so a schedule is seen firing in seconds.
 * Anything else is refused with the option's name, so a typo never starts a stack with other settings.
 */
export interface StartOptions {
  allowLoopbackOutbound: boolean;
  exitWithParent: boolean;
  webhooks: Partial<WebhookTiming>;
  scheduleEverySeconds?: number;
}

const FLAGS = {
  '--allow-loopback-outbound': 'allowLoopbackOutbound',
  '--exit-with-parent': 'exitWithParent',
} as const;

const DURATIONS: Record<string, keyof WebhookTiming> = {
  '--webhook-retry-base': 'retryBaseSeconds',
  '--webhook-retry-cap': 'retryCapSeconds',
  '--webhook-retry-window': 'retryWindowSeconds',
  '--webhook-disable-after': 'disableAfterSeconds',
};

const UNIT_SECONDS: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };

/** Whole seconds of a duration (`90`, `90s`, `5m`, `2h`, `1d`), at least 1. */
export const durationSeconds = (name: string, text: string | undefined): number => {
  const match = /^(\d+)([smhd]?)$/.exec(text ?? '');
  const seconds = match ? Number(match[1]) * (UNIT_SECONDS[match[2] ?? ''] ?? 1) : 0;
  if (!(seconds >= 1))
    throw new Error(`${name} takes a duration such as 30s, 5m or 2h (got ${text ?? 'nothing'})`);
  return seconds;
};

export const parseStartOptions = (args: readonly string[]): StartOptions => {
  const options: StartOptions = { allowLoopbackOutbound: false, exitWithParent: false, webhooks: {} };
  for (let i = 0; i < args.length; i++) {
    const [name = '', inline] = (args[i] ?? '').split(/=(.*)/s, 2);
    if (name in FLAGS && inline === undefined) {
      options[FLAGS[name as keyof typeof FLAGS]] = true;
      continue;
    }
    if (name === '--schedule-every') {
      options.scheduleEverySeconds = durationSeconds(name, inline ?? args[++i]);
      continue;
    }
    const field = DURATIONS[name];
    if (!field) throw new Error(`unknown option ${name}`);
    options.webhooks[field] = durationSeconds(name, inline ?? args[++i]);
  }
  return options;
};
