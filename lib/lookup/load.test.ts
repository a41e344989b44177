import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmulator, type RunningEmulator } from "@/emulator/server";
import { createServiceClient } from "@/lib/service/client";
import { SECRET, SECRET_SUSPENDED, SUB } from "@/tests/emulator/fixture";
import { fixtureScenario } from "@/tests/emulator/fixture";
import { loadFromService } from "./load";

/**
 * A lookup page that cannot read from the service says why in words and what to do, with the status, the codes and
 * the service's error id for a report, never the request's path. Read from the emulator over HTTP.
 */

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, scenario: fixtureScenario(), rateLimits: "off" });
});
afterAll(async () => emulator?.close());

function client(secret: string, baseUrl = emulator.url) {
  return createServiceClient({
    baseUrl,
    environment: "production",
    gameSecret: secret,
    gameId: "lookup-test",
    maxRetries: 0,
    // A guard against a hang, not a speed limit: nothing here hangs, and a busy machine answers slowly.
    timeoutMs: 10_000,
    resolveHost: async () => ["127.0.0.1"],
  });
}

async function fault(body: Record<string, unknown>) {
  const response = await fetch(`${emulator.url}/__emulator/faults`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(201);
}

async function failure(secret: string, baseUrl?: string): Promise<string> {
  const loaded = await loadFromService("subscription", () => client(secret, baseUrl).getSubscription(SUB.monthly));
  if (loaded.ok) throw new Error("expected the read to fail");
  expect(loaded.notFound).toBe(false);
  expect(loaded.message).not.toMatch(/\/api\/|GET /);
  return loaded.message;
}

describe("a lookup the service refuses or fails", () => {
  it("reads the subscription when all is well", async () => {
    const loaded = await loadFromService("subscription", () => client(SECRET).getSubscription(SUB.monthly));
    expect(loaded.ok && loaded.value.subscription.subscription_id).toBe(SUB.monthly);
  });

  it("names a wrong game secret and who fixes it", async () => {
    const message = await failure("gs_not_this_game");
    expect(message).toMatch(/^Could not load the subscription: the service rejected this game's secret\./);
    expect(message).toContain("Settings → Games");
    expect(message).toMatch(/\(HTTP 401, INVALID_GAME_SECRET, service error id [^)]+\)$/);
  });

  it("says a suspended game is refused access", async () => {
    const message = await failure(SECRET_SUSPENDED);
    expect(message).toMatch(/refused this game access/);
    expect(message).toContain("HTTP 403, GAME_NOT_ACTIVE");
  });

  it("says to wait when the service rate limits or fails", async () => {
    await fault({ route: "/api/subscriptions/*", method: "GET", fault: "429", count: 1, retry_after: 1 });
    expect(await failure(SECRET)).toMatch(/rate limiting this game\. Try again in a minute\. \(HTTP 429, RATE_LIMITED/);
    await fault({ route: "/api/subscriptions/*", method: "GET", fault: "500", count: 1 });
    expect(await failure(SECRET)).toMatch(/failed to answer\. Try again in a minute\. \(HTTP 500, INTERNAL_ERROR/);
    await fault({ route: "/api/subscriptions/*", method: "GET", fault: "503", count: 1 });
    expect(await failure(SECRET)).toMatch(/unavailable or paused for maintenance\. Try again later\. \(HTTP 503/);
  });

  it("says the service could not be reached, without an HTTP status", async () => {
    const closed = await startEmulator({ port: 0, scenario: fixtureScenario(), rateLimits: "off" });
    const url = closed.url;
    await closed.close();
    const message = await failure(SECRET, url);
    expect(message).toMatch(/the service could not be reached\. .*base URL\. \(ECONNREFUSED\)$/);
  });

  it("keeps not found apart", async () => {
    const loaded = await loadFromService("subscription", () =>
      client(SECRET).getSubscription("SUB_1767225600_ZZZZ9999"),
    );
    expect(loaded).toEqual({ ok: false, notFound: true, message: "The service has no subscription for this game." });
  });
});
