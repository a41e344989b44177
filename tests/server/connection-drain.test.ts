import { type ChildProcess, spawn } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const ROOT = path.resolve(import.meta.dirname, "../..");
let child: ChildProcess | null = null;

afterEach(() => {
  child?.kill("SIGKILL");
  child = null;
});

/** Starts the child server; resolves with its port and a way to wait for a line of its output. */
async function startServer(env: Record<string, string> = {}) {
  const started = spawn(
    process.execPath,
    ["--import", "./bin/register.mjs", "tests/server/connection-drain-child.ts"],
    {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: "", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  child = started;
  let output = "";
  const waiters: { text: string; resolve: () => void }[] = [];
  started.stderr.on("data", (chunk: Buffer) => {
    output += chunk.toString();
    for (const waiter of waiters) if (output.includes(waiter.text)) waiter.resolve();
  });
  const seen = (text: string) =>
    new Promise<void>((resolve, reject) => {
      if (output.includes(text)) return resolve();
      waiters.push({ text, resolve });
      started.once("exit", () => reject(new Error(`the server ended before "${text}":\n${output}`)));
    });
  const exited = new Promise<number | null>((resolve) => started.once("exit", (code) => resolve(code)));
  await seen("listening on ");
  const port = Number(/listening on (\d+)/.exec(output)?.[1]);
  return { port, seen, exited };
}

type Answer = { status: number; body: string; socketClosedByServer: Promise<void> };

function get(agent: http.Agent, port: number, pathname: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.get({ host: "127.0.0.1", port, path: pathname, agent }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => {
        const socket = request.socket;
        const socketClosedByServer = new Promise<void>((closed) => {
          if (!socket || socket.destroyed) return closed();
          socket.once("close", () => closed());
        });
        resolve({ status: response.statusCode ?? 0, body, socketClosedByServer });
      });
    });
    request.on("error", reject);
  });
}

describe("a stopping app server's keep-alive connections", () => {
  it("end with the answer under way, so the server exits then, not at the keep-alive timeout", async () => {
    const server = await startServer();
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    // The first answer leaves its connection open; the second, on the same connection, is under way at the stop.
    expect((await get(agent, server.port, "/fast")).body).toBe("fast answer");
    const slow = get(agent, server.port, "/slow");
    await server.seen("slow answer begun");
    child?.kill("SIGTERM");
    const answer = await slow;
    expect(answer).toMatchObject({ status: 200, body: "slow answer" });
    // The client keeps the connection (its agent would reuse it): only the server can have closed it.
    await answer.socketClosedByServer;
    expect(await server.exited).toBe(143);
    agent.destroy();
  });

  it("without the drain, the connection outlives the stop (what the drain is for)", async () => {
    const server = await startServer({ DRAIN: "off" });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const slow = get(agent, server.port, "/slow");
    await server.seen("slow answer begun");
    child?.kill("SIGTERM");
    expect((await slow).body).toBe("slow answer");
    // A second later the server is still waiting on the open connection; closing it from this side lets it exit.
    const state = await Promise.race([
      server.exited.then(() => "exited"),
      new Promise((resolve) => setTimeout(() => resolve("waiting"), 1_000)),
    ]);
    expect(state).toBe("waiting");
    agent.destroy();
    expect(await server.exited).toBe(143);
  });
});

/** A GET whose answer is read: resolves once its connection closes, with how it ended. */
function watch(port: number, pathname: string) {
  return new Promise<{ ended: boolean; bytes: number }>((resolve, reject) => {
    let bytes = 0;
    let ended = false;
    const request = http.get({ host: "127.0.0.1", port, path: pathname, agent: false }, (response) => {
      response.on("data", (chunk: Buffer) => (bytes += chunk.length));
      response.on("end", () => (ended = true));
      response.on("error", () => undefined);
    });
    request.on("error", () => undefined);
    request.on("close", () => resolve({ ended, bytes }));
    setTimeout(() => reject(new Error(`${pathname}: the connection was still open after 20 s`)), 20_000);
  });
}

describe("an app server's long answers", () => {
  it("cut a download still under way some time after the stop, so the client knows and the server exits", async () => {
    const server = await startServer({ DRAIN_MS: "500" });
    const stream = watch(server.port, "/stream");
    await server.seen("stream begun");
    child?.kill("SIGTERM");
    const cut = await stream;
    // Lines came, and the answer never ended: a chunked body cut short, not a complete file.
    expect(cut.bytes).toBeGreaterThan(0);
    expect(cut.ended).toBe(false);
    expect(await server.exited).toBe(143);
  });

  it("let a request not answered yet at that time finish, and the server exit after it", async () => {
    const server = await startServer({ DRAIN_MS: "300" });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const later = get(agent, server.port, "/later");
    await server.seen("later answer begun");
    child?.kill("SIGTERM");
    expect(await later).toMatchObject({ status: 200, body: "later answer" });
    expect(await server.exited).toBe(143);
    agent.destroy();
  });

  it("close a connection whose client stopped reading, once nothing has moved on it for a while", async () => {
    // Far past the test's wait: the server can only exit in time by having closed the silent connection itself.
    const server = await startServer({ SILENT_MS: "500", DRAIN_MS: "60000" });
    const stalled = http.get({ host: "127.0.0.1", port: server.port, path: "/huge", agent: false }, (response) =>
      response.pause(),
    );
    stalled.on("error", () => undefined);
    await server.seen("huge begun");
    // The server itself goes on meanwhile.
    const agent = new http.Agent({ keepAlive: false });
    expect((await get(agent, server.port, "/fast")).body).toBe("fast answer");
    agent.destroy();
    child?.kill("SIGTERM");
    const state = await Promise.race([
      server.exited,
      new Promise((resolve) => setTimeout(() => resolve("still waiting on the stalled connection"), 10_000)),
    ]);
    stalled.destroy();
    expect(state).toBe(143);
  });
});
