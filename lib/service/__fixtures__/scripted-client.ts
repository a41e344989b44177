import { createServiceClient, type RequestLogEntry, type ServiceClientConfig } from "../client";
import { refundReceiptBody } from "./bodies";

export const SECRET = "gs_test_DO_NOT_LEAK_9f8e7d";
export const EMAIL = "jane+vip@example.com";

export type Call = { url: string; method: string; headers: Record<string, string>; body: unknown };
export type Step = Response | Error | "hang" | ((call: Call) => Response);

export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

/** A fetch that answers from a script, one step per attempt, and records what it was sent. */
export function scriptedFetch(steps: Step[]) {
  const calls: Call[] = [];
  const fetch = (url: string, init: RequestInit): Promise<Response> => {
    const call: Call = {
      url,
      method: init.method ?? "GET",
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      body: typeof init.body === "string" ? JSON.parse(init.body) : undefined,
    };
    calls.push(call);
    const step = steps.shift();
    if (step === undefined) return Promise.reject(new Error("script exhausted"));
    if (step === "hang") {
      return new Promise((_resolve, reject) => {
        init.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
      });
    }
    if (step instanceof Error) return Promise.reject(step);
    return Promise.resolve(typeof step === "function" ? step(call) : step);
  };
  return { fetch, calls };
}

export function makeClient(steps: Step[], overrides: Partial<ServiceClientConfig> = {}) {
  const { fetch, calls } = scriptedFetch(steps);
  const sleeps: number[] = [];
  const logs: RequestLogEntry[] = [];
  const client = createServiceClient({
    baseUrl: "https://service.example.test",
    environment: "sandbox",
    gameSecret: SECRET,
    gameId: "game_42",
    timeoutMs: 1_000,
    maxRetries: 3,
    pacing: "off",
    fetch,
    log: (entry) => logs.push(entry),
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...overrides,
  });
  return { client, calls, sleeps, logs };
}

export const networkError = () => new TypeError("fetch failed", { cause: { code: "ECONNRESET" } });
export const receiptOk = () => json(200, refundReceiptBody());
