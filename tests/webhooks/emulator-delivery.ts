import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll } from "vitest";
import type { Db } from "../../db";
import { startEmulator, type RunningEmulator } from "../../emulator/server";
import { saveGame } from "../../lib/games/games";
import { stopBoss } from "../../lib/jobs/queue";
import { startWorkers } from "../../lib/jobs/worker";
import { fixtureScenario, SECRET } from "../emulator/fixture";
import { applyTestEnv, createTestDatabase, type TestDatabase } from "../support/db";
import { SLACK } from "../support/slack";
import type { RouteHandler } from "./support";

/**
 * Webhooks delivered for real: the emulator sends its signed events over HTTP to a forwarder in the test, which hands
 * each to the route handler, against a test database, with the background workers running. The test file must mock
 * next/headers (`vi.mock("next/headers", () => import("../support/next-request"))`) before the route is loaded.
 */

/**
 * A small HTTP server on a free local port that hands each `POST /api/webhooks/service/<gameId>` to the route
 * handler, so that the emulator can deliver its signed webhooks over HTTP; anything else answers 404.
 */
export function startForwarder(POST: RouteHandler): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const url = new URL(req.url ?? "/", "http://localhost");
      const match = /^\/api\/webhooks\/service\/([^/]+)$/.exec(url.pathname);
      if (req.method !== "POST" || !match?.[1]) {
        res.writeHead(404).end();
        return;
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
      const response = await POST(new Request(url, { method: "POST", headers, body: Buffer.concat(chunks) }), {
        params: Promise.resolve({ gameId: decodeURIComponent(match[1]) }),
      });
      res.writeHead(response.status, { "content-type": response.headers.get("content-type") ?? "application/json" });
      res.end(Buffer.from(await response.arrayBuffer()));
    })().catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

/** Until no pull of the test database is running, or the hook's slack has passed (nothing here fails on it). */
async function pullsEnded(db: Db): Promise<void> {
  const deadline = Date.now() + 10_000 * SLACK;
  while (Date.now() < deadline) {
    const running = await db.selectFrom("snapshot_pull").select("id").where("status", "=", "running").execute();
    if (running.length === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export type EmulatorWebhooks = { t: TestDatabase; emulator: RunningEmulator; POST: RouteHandler };

/**
 * For the test file: a test database (the environment pointed at it), the webhook route behind a forwarder, and an
 * emulator of the fixture scenario delivering to it for the game `gameId` with `signingSecret` (its retries a hundred
 * times faster). The game is saved (production, the emulator's URL, the signing secret, pacing off), `beforeWorkers`
 * runs, then the workers start. `ready` has everything as soon as the emulator runs. All of it stops after the file.
 */
export function setUpEmulatorWebhooks(
  options: { gameId: string; signingSecret: string; beforeWorkers?: (db: Db) => Promise<unknown> },
  ready: (running: EmulatorWebhooks) => void,
): void {
  let t: TestDatabase | undefined;
  let emulator: RunningEmulator | undefined;
  let forwarder: http.Server | undefined;
  beforeAll(async () => {
    t = await createTestDatabase();
    applyTestEnv(t);
    const { POST } = (await import("../../app/api/webhooks/service/[gameId]/route")) as unknown as {
      POST: RouteHandler;
    };
    forwarder = await startForwarder(POST);
    const forwarderUrl = `http://127.0.0.1:${(forwarder.address() as AddressInfo).port}`;
    emulator = await startEmulator({
      port: 0,
      scenario: fixtureScenario(),
      rateLimits: "off",
      webhookUrl: `${forwarderUrl}/api/webhooks/service/${options.gameId}`,
      webhookSecret: options.signingSecret,
      // The retry schedule (30 s, 2 min, 10 min, ...) a hundred times faster.
      webhookRetryScale: 100,
    });
    ready({ t, emulator, POST });
    await saveGame(
      t.db,
      {
        id: options.gameId,
        name: "Game One",
        environment: "production",
        baseUrl: emulator.url,
        secret: SECRET,
        webhookSecrets: [options.signingSecret],
      },
      { replace: false, as: { actor: null, via: "cli" } },
    );
    await t.db
      .updateTable("game")
      .set({ settings: JSON.stringify({ pacing: "off" }) })
      .where("id", "=", options.gameId)
      .execute();
    await options.beforeWorkers?.(t.db);
    await startWorkers();
  });

  afterAll(async () => {
    // Deliveries stop reaching the route first; the jobs they queued (a re-pull of a window a refund made stale) then
    // finish against the running emulator before the workers stop and the database goes, with no transaction open.
    await new Promise((resolve) => forwarder?.close(resolve));
    // A job still running when the workers stop would go on in a transaction that the database's drop then cuts: on a
    // busy machine a re-pull can outlast the queue's own 10 s, so it gets the hook's slack.
    await stopBoss({ timeoutMs: 20_000 * SLACK });
    // A re-pull still running holds its window's lock on a connection of its own between queries: the drop would cut
    // that connection under it, unheard of by anything but the process. It is given the time to end first.
    if (t) await pullsEnded(t.db);
    await emulator?.close();
    await t?.drop();
  });
}
