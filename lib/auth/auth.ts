import "server-only";
import { betterAuth } from "better-auth";
import { nextCookies } from "better-auth/next-js";
import { getDb } from "@/db";
import { authCookieSecret } from "./session-cookie";
import { appBaseUrl, env, requireEnv, secureCookies } from "@/lib/env";

/**
 * better-auth keeps users, password hashes (scrypt) and sessions in Postgres through our Kysely instance. Its
 * tables are created by db/migrations with snake_case columns; the field maps below tell it their names.
 * Public sign-up is off: users are created by an admin (settings page or `npm run desk -- users add`).
 */
function createAuth() {
  // During a key rotation's rollout every instance signs with the key they all share, the previous one
  // (README, "Keys").
  const cookieKey = env().PAYOUT_DESK_KEY_PREVIOUS ?? requireEnv("PAYOUT_DESK_KEY");
  const secret = authCookieSecret(cookieKey);
  const baseURL = appBaseUrl();
  return betterAuth({
    appName: "Payout Desk",
    baseURL,
    secret,
    database: { db: getDb(), type: "postgres" },
    emailAndPassword: { enabled: true, disableSignUp: true, minPasswordLength: 10, maxPasswordLength: 128 },
    session: {
      modelName: "auth_session",
      expiresIn: 60 * 60 * 12,
      updateAge: 60 * 60,
      fields: {
        expiresAt: "expires_at",
        createdAt: "created_at",
        updatedAt: "updated_at",
        ipAddress: "ip_address",
        userAgent: "user_agent",
        userId: "user_id",
      },
    },
    user: {
      modelName: "auth_user",
      fields: { emailVerified: "email_verified", createdAt: "created_at", updatedAt: "updated_at" },
      additionalFields: {
        role: { type: "string", required: false, defaultValue: "viewer", input: false },
      },
    },
    account: {
      modelName: "auth_account",
      fields: {
        accountId: "account_id",
        providerId: "provider_id",
        userId: "user_id",
        accessToken: "access_token",
        refreshToken: "refresh_token",
        idToken: "id_token",
        accessTokenExpiresAt: "access_token_expires_at",
        refreshTokenExpiresAt: "refresh_token_expires_at",
        createdAt: "created_at",
        updatedAt: "updated_at",
      },
    },
    verification: {
      modelName: "auth_verification",
      fields: { expiresAt: "expires_at", createdAt: "created_at", updatedAt: "updated_at" },
    },
    // better-auth limits requests to its own HTTP routes, which Payout Desk does not mount (the sign-in action calls
    // its API directly): the sign-in limits are the desk's own, per account and per trusted address
    // (lib/auth/sign-in.ts).
    rateLimit: { enabled: false },
    advanced: {
      useSecureCookies: secureCookies(),
      cookiePrefix: "payout-desk",
    },
    telemetry: { enabled: false },
    plugins: [nextCookies()],
  });
}

type Auth = ReturnType<typeof createAuth>;
const holder = globalThis as unknown as { __payoutDeskAuth?: Auth };

export function getAuth(): Auth {
  holder.__payoutDeskAuth ??= createAuth();
  return holder.__payoutDeskAuth;
}
