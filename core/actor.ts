/** The person behind a change; null where nobody signed in is behind it (a scheduled job, the service). */
export type Actor = { id: string; email: string };

/** Where a change came from: the web app, the command line or a background job. */
export const VIA = ["web", "cli", "job"] as const;
export type Via = (typeof VIA)[number];

/** Who acts and through what: passed by the caller to the domain function, which writes the audit line itself. */
export type ActingAs = { actor: Actor | null; via: Via };
