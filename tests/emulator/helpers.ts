import { afterAll, beforeAll, beforeEach } from "vitest";
import { startEmulator, type RunningEmulator, type StartEmulatorOptions } from "@/emulator/server";
import { fixtureScenario, SECRET } from "./fixture";

/** Talks to an emulator over HTTP only, the way a client of the service would. */
export type Call = {
  status: number;
  body: any;
  headers: Headers;
};

export type Client = {
  emulator: RunningEmulator;
  url: string;
  get(
    path: string,
    options?: { secret?: string | null; query?: Record<string, string | number | boolean> },
  ): Promise<Call>;
  post(path: string, body?: unknown, options?: { secret?: string | null; raw?: string }): Promise<Call>;
  admin(path: string, body?: unknown, method?: string): Promise<Call>;
  close(): Promise<void>;
};

async function toCall(response: Response): Promise<Call> {
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = text;
  }
  return { status: response.status, body, headers: response.headers };
}

export async function startClient(options: StartEmulatorOptions, defaultSecret: string): Promise<Client> {
  const emulator = await startEmulator({ port: 0, ...options });
  const headers = (secret: string | null | undefined) => {
    const h: Record<string, string> = { "content-type": "application/json" };
    const key = secret === undefined ? defaultSecret : secret;
    if (key !== null) h["X-Game-Secret-Key"] = key;
    return h;
  };
  return {
    emulator,
    url: emulator.url,
    async get(path, options = {}) {
      const query = options.query
        ? `?${new URLSearchParams(Object.entries(options.query).map(([k, v]) => [k, String(v)])).toString()}`
        : "";
      return toCall(await fetch(`${emulator.url}${path}${query}`, { headers: headers(options.secret) }));
    },
    async post(path, body, options = {}) {
      const payload = options.raw ?? (body === undefined ? "" : JSON.stringify(body));
      return toCall(
        await fetch(`${emulator.url}${path}`, { method: "POST", headers: headers(options.secret), body: payload }),
      );
    },
    async admin(path, body, method) {
      const init: RequestInit = {
        method: method ?? (body === undefined ? "GET" : "POST"),
        headers: { "content-type": "application/json" },
      };
      if (body !== undefined) init.body = JSON.stringify(body);
      return toCall(await fetch(`${emulator.url}/__emulator${path}`, init));
    },
    close: () => emulator.close(),
  };
}

/**
 * An emulator of the fixture scenario for the test file (rate limits off, calls made with SECRET), handed to `ready`
 * once it runs and reset to the scenario before each test.
 */
export function setUpFixtureEmulator(ready: (client: Client) => void): void {
  let client: Client;
  beforeAll(async () => {
    client = await startClient({ scenario: fixtureScenario(), rateLimits: "off" }, SECRET);
    ready(client);
  });
  afterAll(() => client?.close());
  beforeEach(async () => {
    await client.admin("/reset", {});
  });
}

/** Asserts the error envelope of the spec and returns the body. */
export function expectError(call: Call, status: number, code: string): any {
  if (call.status !== status || call.body?.error_code !== code) {
    throw new Error(`expected ${status} ${code}, got ${call.status} ${JSON.stringify(call.body)}`);
  }
  const body = call.body;
  if (typeof body.error !== "string" || typeof body.error_id !== "string" || typeof body.timestamp !== "string") {
    throw new Error(`error envelope incomplete: ${JSON.stringify(body)}`);
  }
  return body;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
