/**
 * A scheduled job's period: it runs once in every span of `seconds` that starts `offsetSeconds` after a multiple of
 * `seconds` since the epoch (UTC). Schedules are written as cron, in the forms the jobs use: every minute
 * (`* * * * *`), every N minutes where N divides an hour (`*\/5 * * * *`) and hourly at minute M (`7 * * * *`).
 */
export type SchedulePeriod = { seconds: number; offsetSeconds: number };

export function periodOfCron(cron: string): SchedulePeriod {
  const fields = cron.trim().split(/\s+/);
  const [minute, ...rest] = fields;
  if (fields.length !== 5 || rest.some((f) => f !== "*") || minute === undefined) {
    throw new Error(`schedule ${JSON.stringify(cron)}: only "* * * * *", "*/N * * * *" and "M * * * *" are supported`);
  }
  if (minute === "*") return { seconds: 60, offsetSeconds: 0 };
  const every = /^\*\/(\d{1,2})$/.exec(minute);
  if (every) {
    const n = Number(every[1]);
    if (n < 1 || 60 % n !== 0) throw new Error(`schedule ${JSON.stringify(cron)}: N must divide 60`);
    return { seconds: n * 60, offsetSeconds: 0 };
  }
  const at = /^\d{1,2}$/.test(minute) ? Number(minute) : Number.NaN;
  if (!(at >= 0 && at < 60)) throw new Error(`schedule ${JSON.stringify(cron)}: minute must be 0 to 59`);
  return { seconds: 3600, offsetSeconds: at * 60 };
}

/** The period of a schedule, or every `overrideSeconds` when set (tests and demos shorten every schedule so). */
export function schedulePeriod(cron: string, overrideSeconds?: number): SchedulePeriod {
  const period = periodOfCron(cron);
  return overrideSeconds ? { seconds: overrideSeconds, offsetSeconds: 0 } : period;
}

/** When the period holding `nowMs` started, epoch ms. */
export function periodStartMs(period: SchedulePeriod, nowMs: number): number {
  const everyMs = period.seconds * 1000;
  const offsetMs = period.offsetSeconds * 1000;
  return Math.floor((nowMs - offsetMs) / everyMs) * everyMs + offsetMs;
}
