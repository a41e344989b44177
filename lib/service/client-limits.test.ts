import { describe, expect, it } from "vitest";
import { attributionReportBody, subscriptionBody } from "./__fixtures__/bodies";
import { createServiceClient, type FetchLike, PAGE_READ_CLIENT, type ServiceClientConfig } from "./client";
import { ServiceError } from "./errors";
import { createPacer, type Pacer } from "./pacing";

/** The client's guards against a hostile or broken endpoint, and its retry budget for long pulls. */

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

function client(fetch: FetchLike, overrides: Partial<ServiceClientConfig> = {}) {
  return createServiceClient({
    baseUrl: "https://service.example.test",
    environment: "sandbox",
    gameSecret: "gs_test_limits_1234",
    gameId: "game_42",
    timeoutMs: 5_000,
    maxRetries: 3,
    pacing: "off",
    fetch,
    random: () => 0.5,
    sleep: async () => {},
    resolveHost: async () => ["93.184.216.34"],
    ...overrides,
  });
}

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ServiceError);
  return error as ServiceError;
}

/** A body that never ends; records how much of it was pulled and whether the reader gave up. */
function endlessBody() {
  const state = { pulled: 0, cancelled: false };
  const chunk = new TextEncoder().encode(`{"status":"success","padding":"${"x".repeat(64 * 1024)}`);
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      state.pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

describe("the body cap", () => {
  it("stops reading an answer that never ends past the limit, and says so without retrying", async () => {
    const { stream, state } = endlessBody();
    let calls = 0;
    const c = client(
      async () => {
        calls += 1;
        return new Response(stream, { status: 200, headers: { "content-type": "application/json" } });
      },
      { maxBodyBytes: 1024 * 1024 },
    );
    const error = await failure(c.getSubscription("SUB_1767225600_ab12cd34"));
    expect(error.code).toBe("RESPONSE_TOO_LARGE");
    expect(error.message).toMatch(/larger than the 1 MB the client reads/);
    expect(state.cancelled).toBe(true);
    // The limit, plus what the stream queued ahead of the reader.
    expect(state.pulled).toBeLessThanOrEqual(1024 * 1024 + 3 * (64 * 1024 + 64));
    expect(calls).toBe(1);
  });

  it("refuses a declared Content-Length over the limit before reading", async () => {
    const { stream, state } = endlessBody();
    const c = client(
      async () => new Response(stream, { status: 200, headers: { "content-length": String(50 * 1024 * 1024) } }),
    );
    const error = await failure(c.getSubscription("SUB_1767225600_ab12cd34"));
    expect(error.code).toBe("RESPONSE_TOO_LARGE");
    expect(error.message).toMatch(/4 MB/);
    expect(state.pulled).toBeLessThanOrEqual(2 * (64 * 1024 + 64));
  });

  it("caps an error answer too, and reads answers under the limit whole", async () => {
    const { stream } = endlessBody();
    const failing = client(async () => new Response(stream, { status: 503 }), { maxBodyBytes: 256 * 1024 });
    expect((await failure(failing.getSubscription("SUB_1767225600_ab12cd34"))).code).toBe("RESPONSE_TOO_LARGE");
    const fine = client(async () => json(200, { status: "success", subscription: subscriptionBody() }), {
      maxBodyBytes: 256 * 1024,
    });
    expect((await fine.getSubscription("SUB_1767225600_ab12cd34")).subscription.subscription_id).toBe(
      subscriptionBody().subscription_id,
    );
  });

  it("gives the aggregate report a larger default cap than the other routes", async () => {
    const big = { ...attributionReportBody(), padding: "x".repeat(5 * 1024 * 1024) };
    const c = client(async () => json(200, big));
    const report = await c.getAttributionReport({ start: "2026-03-01", end: "2026-04-01" });
    expect(report.recipients).toHaveLength(1);
    const other = client(async () =>
      json(200, { status: "success", subscription: subscriptionBody(), padding: "x".repeat(5 * 1024 * 1024) }),
    );
    expect((await failure(other.getSubscription("SUB_1767225600_ab12cd34"))).code).toBe("RESPONSE_TOO_LARGE");
  });
});

describe("link-local and metadata addresses", () => {
  it("refuses a production base URL that names one, before any request", () => {
    for (const baseUrl of ["https://169.254.169.254", "https://metadata.google.internal", "https://[fd00:ec2::254]"]) {
      expect(() => client(async () => json(200, {}), { baseUrl, environment: "production" }), baseUrl).toThrow(
        /link-local or cloud metadata/,
      );
    }
  });

  it("refuses a production host that resolves to one, sending nothing and not retrying", async () => {
    let calls = 0;
    const c = client(
      async () => {
        calls += 1;
        return json(200, { status: "success", subscription: subscriptionBody() });
      },
      {
        environment: "production",
        baseUrl: "https://api.rebound.example",
        resolveHost: async () => ["203.0.113.7", "169.254.169.254"],
      },
    );
    const error = await failure(c.getSubscription("SUB_1767225600_ab12cd34"));
    expect(error.code).toBe("ADDRESS_REFUSED");
    expect(error.message).toContain("api.rebound.example (169.254.169.254)");
    expect(calls).toBe(0);
  });

  it("lets a sandbox game on loopback and a production host on a public address through", async () => {
    const asked: string[] = [];
    const ok = async (url: string) => {
      asked.push(new URL(url).host);
      return json(200, { status: "success", subscription: subscriptionBody() });
    };
    const sandbox = await client(ok, { baseUrl: "http://127.0.0.1:4010" }).getSubscription("SUB_1767225600_ab12cd34");
    const production = await client(ok, {
      environment: "production",
      baseUrl: "https://api.service.example",
    }).getSubscription("SUB_1767225600_ab12cd34");
    expect(asked).toEqual(["127.0.0.1:4010", "api.service.example"]);
    expect([sandbox.subscription.subscription_id, production.subscription.subscription_id]).toEqual([
      "SUB_1767225600_ab12cd34",
      "SUB_1767225600_ab12cd34",
    ]);
  });
});

describe("the retry budget", () => {
  function clocked(steps: (() => Response | Error)[], overrides: Partial<ServiceClientConfig>) {
    let clock = 0;
    const sleeps: number[] = [];
    let calls = 0;
    const c = client(
      async () => {
        calls += 1;
        const step = steps.shift();
        if (!step) throw new Error("script exhausted");
        const value = step();
        if (value instanceof Error) throw value;
        return value;
      },
      {
        now: () => clock,
        sleep: async (ms) => {
          sleeps.push(ms);
          clock += ms;
        },
        ...overrides,
      },
    );
    return { c, sleeps, calls: () => calls, clock: () => clock };
  }
  const unavailable = () => json(503, { status: "service_unavailable" });
  const limited = (seconds: number) => () => json(429, { error_code: "rate_limit_exceeded", retry_after: seconds });
  const reset = () => new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
  const ok = () => json(200, { status: "success", subscription: subscriptionBody() });

  it("retries past maxRetries and waits out a long retry_after while the budget lasts", async () => {
    const steps = [limited(300), unavailable, reset, unavailable, unavailable, reset, unavailable, unavailable, ok];
    const run = clocked(steps, { retryBudgetMs: 15 * 60_000, maxRetries: 2 });
    await run.c.getSubscription("SUB_1767225600_ab12cd34");
    expect(run.calls()).toBe(9);
    expect(run.sleeps[0]).toBeGreaterThanOrEqual(300_000);
    // Backoff doubles from 250 ms with full jitter and stops growing at 15 s.
    expect(run.sleeps.slice(1)).toEqual(
      [250, 500, 1_000, 2_000, 4_000, 7_500, 7_500].map((ceiling) => Math.floor(ceiling)),
    );
    expect(run.c.stats().retries).toBe(8);
  });

  it("gives up when the next wait would end past the budget, with the attempts made", async () => {
    const steps = Array.from({ length: 10 }, () => limited(400));
    const run = clocked(steps, { retryBudgetMs: 15 * 60_000 });
    const error = await failure(run.c.getSubscription("SUB_1767225600_ab12cd34"));
    expect(error.status).toBe(429);
    expect(error.attempts).toBe(3);
    expect(run.clock()).toBeLessThanOrEqual(15 * 60_000);
  });

  it("gives a page's read two attempts and waits out no long retry_after", async () => {
    const hung = clocked([reset, reset, ok], PAGE_READ_CLIENT);
    expect((await failure(hung.c.getSubscription("SUB_1767225600_ab12cd34"))).attempts).toBe(2);
    expect(hung.calls()).toBe(2);
    const limitedLong = clocked([limited(30), ok], PAGE_READ_CLIENT);
    expect((await failure(limitedLong.c.getSubscription("SUB_1767225600_ab12cd34"))).status).toBe(429);
    expect(limitedLong.calls()).toBe(1);
    const once = clocked([unavailable, ok], PAGE_READ_CLIENT);
    await once.c.getSubscription("SUB_1767225600_ab12cd34");
    expect(once.calls()).toBe(2);
  });

  it("runs the budget from the first try: a long wait for the pacer before it is no outage", async () => {
    let clock = 0;
    const off = createPacer({ mode: "off" });
    // Another call's 429 paused the game's buckets for 15 minutes: this call's first try waits it out.
    let waited = false;
    const pacer: Pacer = {
      ...off,
      acquire: async () => {
        if (waited) return 0;
        waited = true;
        clock += 15 * 60_000;
        return 15 * 60_000;
      },
    };
    const steps = [unavailable, ok];
    const c = client(
      async () => {
        const step = steps.shift();
        if (!step) throw new Error("script exhausted");
        return step();
      },
      {
        now: () => clock,
        sleep: async (ms) => {
          clock += ms;
        },
        retryBudgetMs: 15 * 60_000,
        pacing: pacer,
      },
    );
    await c.getSubscription("SUB_1767225600_ab12cd34");
    expect(c.stats().retries).toBe(1);
  });

  it("never retries a refusal, budget or not", async () => {
    for (const status of [400, 401, 403, 404]) {
      const run = clocked([() => json(status, { error_code: "NOPE" }), ok], { retryBudgetMs: 15 * 60_000 });
      expect((await failure(run.c.getSubscription("SUB_1767225600_ab12cd34"))).status).toBe(status);
      expect(run.calls()).toBe(1);
    }
  });
});
