import { z } from "zod";

/**
 * One mailbox, as statement emails are sent to: zod's email pattern, used by `z.email()` in TypeScript and, as the
 * same source, by PostgreSQL's `~` (db/queries/statement-deliveries.ts; its partial index,
 * db/migrations/2026_12_03_1000_statement_mailbox_idx.ts, holds the same text). The service reports a player's email as
 * free text: two addresses in one, or a name with an address, is not a mailbox.
 */
export const MAILBOX_PATTERN: RegExp = z.regexes.email;

export const MAILBOX = z.email({ pattern: MAILBOX_PATTERN });
