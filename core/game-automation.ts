import { z } from "zod";

/**
 * A game's automation settings, kept under `settings.automation` of the game row (beside other areas' keys).
 * Missing or unreadable values fall back to the defaults, so an older row or a hand-edited one never stops a job.
 */
export const gameAutomationSchema = z.object({
  /** Queue a pull of a window as soon as a webhook marks its snapshot stale. */
  autoRefresh: z.boolean().catch(false).default(false),
  /** On the first day of a month, pull the month that just closed (month-end review starts from it). */
  pullPreviousMonth: z.boolean().catch(true).default(true),
  /** Once a day, pull the month so far. */
  pullCurrentMonthDaily: z.boolean().catch(true).default(true),
});
export type GameAutomation = z.infer<typeof gameAutomationSchema>;

export const DEFAULT_AUTOMATION: GameAutomation = gameAutomationSchema.parse({});

/** The automation settings inside a game's settings object. */
export function readAutomation(settings: Record<string, unknown> | null | undefined): GameAutomation {
  const value = settings?.automation;
  const parsed = gameAutomationSchema.safeParse(value && typeof value === "object" ? value : {});
  return parsed.success ? parsed.data : DEFAULT_AUTOMATION;
}
