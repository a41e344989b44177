import { z } from "zod";
import { isForbiddenServiceHost } from "@/lib/service/address";

export const gameIdSchema = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/, {
    message: "must be 1 to 64 letters, digits, dots, dashes or underscores",
  });

export const secretSchema = z
  .string()
  .trim()
  .min(8, { message: "must be at least 8 characters" })
  .max(512, { message: "must be at most 512 characters" })
  .regex(/^\S+$/, { message: "must not contain spaces" });

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

/** new URL() that answers null instead of throwing (the refinements below only see what `.url()` accepted). */
function tryUrl(value: string): URL | null {
  try {
    return new URL(value);
  } catch {
    return null;
  }
}

export const baseUrlSchema = z
  .string()
  .trim()
  .url({ message: "must be a URL such as https://api.example.com", abort: true })
  .refine((value) => /^https?:$/.test(tryUrl(value)?.protocol ?? "https:"), { message: "must start with https://" })
  // The client calls the address's origin and path: a query or a fragment it refuses, and a user name or password in
  // it would be shown and audited in the clear (the game secret is the credential).
  .refine((value) => !tryUrl(value)?.search && !tryUrl(value)?.hash && !/[?#]/.test(value), {
    message: "must not carry a query (?…) or a fragment (#…)",
  })
  .refine((value) => !tryUrl(value)?.username && !tryUrl(value)?.password, {
    message: "must not carry a user name or password (the game secret is sent apart)",
  })
  .transform((value) => value.replace(/\/+$/, ""));

/**
 * Where a game's secret may be sent. The spec: "HTTPS only"; plain http is accepted for a local emulator on loopback.
 * Never a link-local or cloud metadata endpoint of the host itself in production. The form and the CLI check the same.
 */
export function checkServiceAddress(game: { baseUrl: string; environment: string }, ctx: z.RefinementCtx): void {
  const url = tryUrl(game.baseUrl);
  if (url?.protocol === "http:" && !LOOPBACK.test(url.hostname)) {
    ctx.addIssue({
      code: "custom",
      path: ["baseUrl"],
      message: "must use https:// (http is only for a local emulator)",
    });
  }
  if (game.environment === "production" && url && isForbiddenServiceHost(url.hostname)) {
    ctx.addIssue({
      code: "custom",
      path: ["baseUrl"],
      message: "must not be a link-local or cloud metadata address",
    });
  }
}

/** A game's settings as the form and the command line both take them (each adds its webhook secrets). */
export const gameFieldsSchema = z.object({
  id: gameIdSchema,
  name: z.string().trim().min(1, { message: "is required" }).max(120, { message: "must be at most 120 characters" }),
  environment: z.enum(["sandbox", "production"], { message: "must be sandbox or production" }),
  baseUrl: baseUrlSchema,
  secret: secretSchema,
});

export const gameInputSchema = gameFieldsSchema
  .extend({
    webhookSecrets: z.array(secretSchema).max(2, { message: "takes the current secret and at most one previous" }),
  })
  .superRefine(checkServiceAddress);
export type GameInput = z.input<typeof gameInputSchema>;
