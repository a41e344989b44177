import { z } from "zod";

/**
 * A stored webhook event's id (a bigserial) in a URL, a form or a job: at most 18 digits, so that any id given fits
 * PostgreSQL's bigint (19 digits may not: 9999999999999999999 is out of range).
 */
export const webhookEventIdSchema = z.string().regex(/^\d{1,18}$/, { message: "must be a webhook event id" });
