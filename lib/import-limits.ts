/**
 * The most text a file imported from a page may hold, with the refusal shown for more: the actions' schemas refuse it,
 * and the import forms refuse it before sending (a form much larger than this is refused by the server whole, before
 * any action can say why).
 */
export const IMPORT_LIMITS = {
  /** A provider's payment results (the command line reads the same). */
  results: { chars: 20_000_000, message: "the file is too large" },
  /** Payout profiles from the page. */
  profiles: { chars: 2_000_000, message: "must be under 2 MB" },
} as const;

export type ImportLimit = (typeof IMPORT_LIMITS)[keyof typeof IMPORT_LIMITS];
