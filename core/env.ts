import "server-only";
import { isValidBIC, isValidIBAN } from "ibantools";
import { z } from "zod";

/**
 * The settings, read from process.env and parsed once, on first use (a build has no database), failing fast with a
 * message naming the variable. A few are also read raw where this module cannot be loaded or before they are parsed
 * (the proxy, instrumentation, the start and the CLI's set-up); each is parsed here when the app first reads it.
 */
/** How long a stopping web server lets answers already being sent go on, unless PAYOUT_DESK_DRAIN_SECONDS says. */
export const DEFAULT_DRAIN_SECONDS = 30;

/** A TCP port as typed: digits only (no "0x1F90", "8e3" or "3000abc"), 1 to 65535. */
export const portSchema = z
  .string()
  .trim()
  .regex(/^\d{1,5}$/, { message: "must be a port number from 1 to 65535", abort: true })
  .transform(Number)
  .pipe(z.number().min(1, "must be a port number from 1 to 65535").max(65535, "must be a port number from 1 to 65535"));

/** A key as written: 32 random bytes in base64, as `openssl rand -base64 32` prints them. */
export const keyTextSchema = z
  .string()
  .regex(/^[A-Za-z0-9+/]{43}=$/, { message: "must be 32 random bytes in base64 (openssl rand -base64 32)" });

/** Latin letters only: those written out in SEPA text (ß as ss, Ø as O: lib/payments/formats/sepa-text.ts) too. */
const latinOnly = (v: string) => !/\p{L}/u.test(v.normalize("NFD").replace(/[A-Za-zßæÆøØœŒłŁđĐþÞı]/g, ""));

const ENV_SCHEMA = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    // The scheme is checked: a URL missing it (user:password@host/db) reads as one of another scheme, whose "path"
    // would hold the password and the host, and connects nowhere meant.
    DATABASE_URL: z
      .url({
        protocol: /^postgres(ql)?$/,
        message: "must be a postgres:// URL (postgres://user:password@host/database)",
      })
      .optional(),
    PAYOUT_DESK_KEY: keyTextSchema.optional(),
    /** During a key rotation's rollout: the key secrets may still be sealed with (README, "Keys"). */
    PAYOUT_DESK_KEY_PREVIOUS: keyTextSchema.optional(),
    /** The desk's own address (its origin: it is served at the root), as every link and cookie names it. */
    PAYOUT_DESK_URL: z
      .url({
        protocol: /^https?$/,
        message: "must be the http or https address people reach the desk at, such as https://desk.example.com",
        abort: true,
      })
      .refine(
        (value) => {
          const url = new URL(value);
          return !url.username && !url.password;
        },
        {
          message: "must not hold a user name or password: it is written into every link the desk sends",
          abort: true,
        },
      )
      .refine(
        (value) => {
          const url = new URL(value);
          return url.pathname === "/" && !url.search && !url.hash;
        },
        { message: "must be the desk's address alone (scheme, host and port), with no path, query or fragment" },
      )
      .transform((value) => new URL(value).origin)
      .optional(),
    PAYOUT_DESK_DATA_DIR: z.string().default(".data"),
    PORT: portSchema.default(3000),
    LOG_LEVEL: z.enum(["debug", "info", "warn", "error", "silent"]).default("info"),
    PAYOUT_DESK_EMULATOR: z.enum(["on", "off"]).optional(),
    PAYOUT_DESK_SECURE_COOKIES: z.enum(["on", "off"]).optional(),
    PAYOUT_DESK_JOBS: z.enum(["on", "off"]).default("on"),
    PAYOUT_DESK_TRUST_PROXY: z.enum(["on", "off"]).default("off"),
    /** How long a snapshot pull keeps retrying one page through service failures before it gives up, in minutes. */
    PAYOUT_DESK_PULL_RETRY_MINUTES: z.coerce
      .number({ message: "must be a number of minutes" })
      .min(0, { message: "must be between 0 and 1440 minutes" })
      .max(1440, { message: "must be between 0 and 1440 minutes" })
      .default(15),
    /**
     * How long a stopping web server lets answers already being sent (a long download) go on before it cuts them, in
     * seconds (lib/connection-drain.ts). Digits only, 0 to 3600.
     */
    PAYOUT_DESK_DRAIN_SECONDS: z
      .string()
      .trim()
      .regex(/^\d{1,4}$/, { message: "must be a whole number of seconds from 0 to 3600", abort: true })
      .transform(Number)
      .pipe(z.number().max(3600, "must be a whole number of seconds from 0 to 3600"))
      .default(DEFAULT_DRAIN_SECONDS),
    /** Tests and demos: every scheduled job runs every this many seconds instead of on its own schedule. */
    PAYOUT_DESK_SCHEDULE_SECONDS: z.coerce
      .number({ message: "must be a number of seconds" })
      .int({ message: "must be a whole number of seconds between 1 and 3600" })
      .min(1, { message: "must be a whole number of seconds between 1 and 3600" })
      .max(3600, { message: "must be a whole number of seconds between 1 and 3600" })
      .optional(),
    /** Where statement emails go out (README, "Statements"); `npm start` points it at its mail catcher when unset. */
    SMTP_URL: z
      .string()
      .regex(/^smtps?:\/\/[^\s]+$/, { message: "must be an smtp:// or smtps:// URL", abort: true })
      // A password's "/" not percent-encoded can also read as a host, a port and a path ("smtp://u:2024/pw@host").
      .refine((v) => URL.canParse(v) && new URL(v).hostname !== "" && ["", "/"].includes(new URL(v).pathname), {
        message:
          "is not a URL the mail library can read: a user name or password with / ? # @ or : in it must be " +
          "percent-encoded (%2F %3F %23 %40 %3A)",
      })
      .optional(),
    /** The From of statement emails: an address, optionally with a name ("Studio <statements@studio.example>"). */
    SMTP_FROM: z
      .string()
      .regex(/^([^<>@\r\n]*<[^<>@\s]+@[^<>@\s]+>|[^<>@\s]+@[^<>@\s]+)$/, { message: "must be an email address" })
      .default("Payout Desk <statements@payout-desk.localhost>"),
    /**
     * The account SEPA / ISO 20022 payment files pay from (lib/payments/files.ts): name, IBAN, BIC, all three or none.
     * A sandbox game's files always name a demo account; unset, a production game's are refused.
     */
    PAYOUT_DESK_PAYER_NAME: z
      .string()
      .trim()
      .min(1)
      // SEPA files carry names of up to 70 characters in the Latin character set (lib/payments/formats/pain001.ts):
      // a longer one would be cut, letters of another script dropped (a name all in one, written empty).
      .max(70, { message: "must be at most 70 characters (what a SEPA file carries)" })
      .refine(latinOnly, {
        message: "must be written in Latin letters (SEPA files carry no other script), e.g. Studio Example GmbH",
      })
      .optional(),
    // Checked when the desk starts, not when the first SEPA file is made (the value itself is never repeated).
    PAYOUT_DESK_PAYER_IBAN: z
      .string()
      .trim()
      .transform((v) => v.replace(/\s/g, "").toUpperCase())
      .refine((v) => isValidIBAN(v), { message: "must be a valid IBAN" })
      .optional(),
    PAYOUT_DESK_PAYER_BIC: z
      .string()
      .trim()
      .toUpperCase()
      .refine((v) => isValidBIC(v), { message: "must be a valid BIC (8 or 11 letters and digits)" })
      .optional(),
    /**
     * The payer's town and country (ISO 3166 code), both or neither: written as the SEPA file's payer address, which a
     * euro transfer to an account outside the EEA must carry (lib/payments/sepa-area.ts outsideEea). Unset, such
     * accounts are left out of SEPA files.
     */
    PAYOUT_DESK_PAYER_TOWN: z
      .string()
      .trim()
      .min(1)
      .max(35, { message: "must be at most 35 characters (what a SEPA file carries)" })
      .refine(latinOnly, {
        message: "must be written in Latin letters (SEPA files carry no other script), e.g. Zürich",
      })
      .optional(),
    PAYOUT_DESK_PAYER_COUNTRY: z
      .string()
      .trim()
      .toUpperCase()
      .regex(/^[A-Z]{2}$/, { message: "must be a two-letter country code such as DE" })
      .optional(),
  })
  .superRefine((e, ctx) => {
    const address = [e.PAYOUT_DESK_PAYER_TOWN, e.PAYOUT_DESK_PAYER_COUNTRY];
    if (address.some((v) => v !== undefined) && address.some((v) => v === undefined))
      ctx.addIssue({
        code: "custom",
        path: ["PAYOUT_DESK_PAYER_TOWN"],
        message: "the payer's address needs both PAYOUT_DESK_PAYER_TOWN and PAYOUT_DESK_PAYER_COUNTRY",
      });
    else if (address.every((v) => v !== undefined) && e.PAYOUT_DESK_PAYER_NAME === undefined)
      ctx.addIssue({
        code: "custom",
        path: ["PAYOUT_DESK_PAYER_TOWN"],
        message: "is the address of the payer account: set PAYOUT_DESK_PAYER_NAME, _IBAN and _BIC with it",
      });
    const payer = [e.PAYOUT_DESK_PAYER_NAME, e.PAYOUT_DESK_PAYER_IBAN, e.PAYOUT_DESK_PAYER_BIC];
    if (payer.some((v) => v !== undefined) && payer.some((v) => v === undefined))
      ctx.addIssue({
        code: "custom",
        path: ["PAYOUT_DESK_PAYER_NAME"],
        message: "the payer account needs all three of PAYOUT_DESK_PAYER_NAME, PAYOUT_DESK_PAYER_IBAN and _BIC",
      });
  });

export type Env = z.infer<typeof ENV_SCHEMA>;

let cached: Env | undefined;

export function readEnv(source: Record<string, string | undefined> = process.env): Env {
  // A variable set to nothing (VAR= in an env file) is a variable not set: its default, never 0 or "".
  const given = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ""));
  const parsed = ENV_SCHEMA.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`Invalid environment variable ${issue?.path.join(".")}: ${issue?.message}`);
  }
  return parsed.data;
}

export function env(): Env {
  cached ??= readEnv();
  return cached;
}

/** Values the app cannot run without; the start script always provides them. */
export function requireEnv<K extends "DATABASE_URL" | "PAYOUT_DESK_KEY">(name: K): string {
  const value = env()[name];
  if (!value) throw new Error(`${name} is not set: start Payout Desk with "npm start", or set it (see README.md)`);
  return value;
}

export function appBaseUrl(): string {
  return env().PAYOUT_DESK_URL ?? `http://localhost:${env().PORT}`;
}

/** Whether the desk's cookies are marked Secure: served over https, or behind a TLS proxy that says so. */
export function secureCookies(): boolean {
  return env().PAYOUT_DESK_SECURE_COOKIES === "on" || appBaseUrl().startsWith("https://");
}
